// SPDX-License-Identifier: Apache-2.0
// The libFuzzer entry point: scripts/fuzz.sh builds it with
// -sanitize=fuzzer,address. In an ordinary build it is an empty program.
import ToastFuzzing

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let violations = FuzzInput.run(UnsafeBufferPointer(start: data, count: size))
    guard violations.isEmpty else {
        for violation in violations {
            let line = Array("toast-fuzz: \(violation)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
        abort()
    }
    return 0
}
