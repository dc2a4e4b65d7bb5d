import ToastctlCommands

Toastctl.main(arguments: Array(CommandLine.arguments.dropFirst()))
