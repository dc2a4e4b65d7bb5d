// The scheduler speaks the protocol: whoever imports it has the protocol too.
@_exported import ToastProtocol
