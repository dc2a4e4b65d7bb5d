// SPDX-License-Identifier: Apache-2.0
import CommandLineSupport
import ToastdCommand

CommandLineTool.main(Toastd.self, arguments: preprocess(Array(CommandLine.arguments.dropFirst())))
