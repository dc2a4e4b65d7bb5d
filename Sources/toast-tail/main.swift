import ToastTail
import CommandLineSupport

CommandLineTool.main(ToastTailCommand.self, arguments: Array(CommandLine.arguments.dropFirst()))
