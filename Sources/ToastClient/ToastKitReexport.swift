// toastctl's commands stand on ToastKit (the connection, the stream
// position); its users see both through `import ToastClient`.
@_exported import ToastKit
