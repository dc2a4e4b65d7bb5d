import ToastTail
import ToastClient

CommandLineTool.main(ToastTailCommand.self, arguments: Array(CommandLine.arguments.dropFirst()))
