// SPDX-License-Identifier: Apache-2.0
import CToastctlFront

// toastctl's front: a one-line `toastctl add "Build finished" --role
// success` from a script is the command toastd serves most, and the full
// toastctl is a 16 MB program (swift-argument-parser, its Foundation, the
// client library). After a long idle spell the page cache has let go of
// it, and reading it back was most of a session's first add (20 to 30 ms
// against 1.2 warm, docs/BENCHMARKS.md, "At rest"). This front is Embedded
// Swift, tens of KB, and only sends the plain form of `add` itself
// (AddLine); anything else, and an add toastd refuses, runs the full
// toastctl with the same arguments (FullToastctl).

Front.main()
