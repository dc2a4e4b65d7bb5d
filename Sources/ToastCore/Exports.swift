// SPDX-License-Identifier: Apache-2.0
// The scheduler speaks the protocol: whoever imports it has the protocol too.
@_exported import ToastProtocol
