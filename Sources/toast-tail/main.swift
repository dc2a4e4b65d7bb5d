import ToastTail
ToastTailCommand.main()
