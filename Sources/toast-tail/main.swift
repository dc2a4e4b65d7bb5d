// SPDX-License-Identifier: Apache-2.0
import ToastTail
import CommandLineSupport

CommandLineTool.main(ToastTailCommand.self, arguments: Array(CommandLine.arguments.dropFirst()))
