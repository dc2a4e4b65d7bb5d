// SPDX-License-Identifier: Apache-2.0
import ToastSystem
import ToastctlCommands

// toastctl's front runs this program for every command it does not send
// itself; named as the front is, toastd's default source for its adds is
// `toastctl[pid]` whichever of the two sent them (two runs of `toastctl
// add` are one sender, PROTOCOL.md section 5.2).
ProcFile.nameThisThread("toastctl")
Toastctl.main(arguments: Array(CommandLine.arguments.dropFirst()))
