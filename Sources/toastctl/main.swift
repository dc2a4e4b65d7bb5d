// SPDX-License-Identifier: Apache-2.0
import ToastctlCommands

Toastctl.main(arguments: Array(CommandLine.arguments.dropFirst()))
