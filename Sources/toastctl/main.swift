import ToastClient

Toastctl.main(arguments: Array(CommandLine.arguments.dropFirst()))
