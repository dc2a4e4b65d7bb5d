// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import ToastProtocol

// The toast's enums as command-line values: read by their wire names and
// completed from their cases, in every tool alike.
extension ToastRole: ExpressibleByArgument {}
extension ToastAlignment: ExpressibleByArgument {}
