// SPDX-License-Identifier: Apache-2.0
import ToastdCommand

Toastd.main(arguments: Array(CommandLine.arguments.dropFirst()))
