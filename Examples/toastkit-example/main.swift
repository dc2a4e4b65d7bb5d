// SPDX-License-Identifier: Apache-2.0
// A Swift program that shows toasts through ToastKit: a progress toast
// updated in place, then a question whose answer it waits for.
//
//   swift run toastkit-example          (with toastd running)
import ToastKit

@main
struct ToastKitExample {
    static func main() async {
        do {
            try await ToastSession.withSource("toastkit-example", bind: true) { toasts in
                let copy = try await toasts.show("Copying photos…", title: "Backup", role: .info, progress: .fraction(0))
                for step in 1...4 {
                    try await Task.sleep(for: .milliseconds(250))
                    try await copy.update(progress: Double(step) / 4)
                }
                try await copy.update(ToastPatch(message: "80 photos copied", role: .success, duration: .some(.short), progress: ToastProgress.none))
                let question = try await toasts.show(
                    "Delete the originals?", role: .warning, duration: .seconds(10),
                    actions: [ToastAction(id: "delete", label: "Delete"), ToastAction(id: "keep", label: "Keep")]
                )
                switch await question.outcome {
                case .action(let action): print("answered: \(action)")
                case .dismissed(let reason): print("no answer: \(reason.rawValue)")
                case .cancelled(let reason): print("not shown: \(reason.rawValue)")
                }
            }
        } catch {
            print("toastkit-example: \(error)")
        }
    }
}
