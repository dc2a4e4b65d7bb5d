// SPDX-License-Identifier: Apache-2.0
// An app imports ToastKit alone: the protocol's types (Toast, ToastRole, ToastEvent...) come with it.
@_exported import ToastProtocol
