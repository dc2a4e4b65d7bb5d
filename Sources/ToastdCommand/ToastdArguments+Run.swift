// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandLineSupport
import Logging
import NIOCore
import Systemd
import ToastConfig
import ToastCore
import ToastDaemon
import ToastFreedesktop
import ToastStore
import ToastSystem

#if canImport(Glibc)
import Glibc
#endif

/// What `toastd` does once its flags are read: logging, the store, socket
/// activation, the freedesktop bridge and systemd, around `ToastServer`.
extension ToastdArguments {
    public func run() throws {
        let environment = ProcessInfoEnvironment.current
        if let checkConfig {
            try check(checkConfig, environment: environment)
            return
        }
        // Before any thread starts (the store's, the event loop's): a SIGTERM
        // during start-up then waits for the thread that takes it.
        BlockedSignals.block(ToastServer.handledSignals)
        // Whatever toastd creates (its state, its socket) is its user's alone.
        umask(0o077)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let journal =
            logTarget == .journal || (logTarget == .auto && JournalLogHandler.stderrIsJournal(environment: environment))
        LoggingSystem.bootstrap { label in
            if journal {
                var handler = JournalLogHandler(
                    label: label, identifier: "toastd", fieldPrefix: "TOASTD_", fallback: EscapingLogHandler(label: label))
                handler.logLevel = level
                return handler
            }
            var handler = EscapingLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "toastd")
        let source = configurationSource(environment: environment)
        var options = self.options(environment: environment, uid: getuid(), initialConfiguration: source.load())
        switch options.initialConfiguration {
        case .defaults:
            break
        case .loaded(let loaded):
            logger.info("configuration loaded", metadata: ["path": "\(source.path ?? "-")", "rules": "\(loaded.rules.rules.count)"])
        case .refused(let invalid):
            logger.critical(
                "configuration refused; toastd runs on its defaults until a good file is loaded",
                metadata: ["problems": "\(invalid.description)"]
            )
            printError("toastd: configuration refused; running on the defaults:\n\(invalid.description)")
        }
        // Where the bridge keeps its notifications' owners across a restart:
        // beside the store, while the store is there.
        var bridgeMemory: NotificationServer.Memory?
        if let directory = try stateDirectory(environment: environment) {
            do {
                let (store, loaded) = try ToastStore.open(directory: directory, historySize: options.historySize)
                for note in loaded.notes { logger.error("\(note)") }
                logger.info(
                    "state restored",
                    metadata: ["database": "\(store.path)", "toasts": "\(loaded.scheduler.count)", "instance": "\(loaded.instance)"]
                )
                options.storage = .durable(store, loaded)
                let file = directory + "/freedesktop-owners"
                bridgeMemory = NotificationServer.Memory(
                    read: { try StateDirectory.readFile(file, limit: NotificationServer.memoryLimit) },
                    write: { try StateDirectory.replaceFile(file, with: $0) }
                )
            } catch .locked(let directory) {
                logger.critical("\(ToastStore.Failure.locked(directory))")
                throw ExitCode(1)
            } catch {
                logger.error("persistence degraded: toastd keeps serving from memory", metadata: ["reason": "\(error)"])
                let historySize = options.historySize
                options.storage = .degraded("\(error)", reopen: { try ToastStore.open(directory: directory, historySize: historySize).0 })
            }
        }
        switch SocketActivation.inherit() {
        case .nothing:
            break
        case .passedTo(let recipient):
            logger.warning(
                "the service manager passed its sockets to process \(recipient), not to toastd (\(getpid())), so toastd does not use them; start toastd itself, or exec it from the wrapper"
            )
        case .sockets(let sockets):
            let inherited = sockets[0]
            guard SocketActivation.isListeningUnixStream(inherited.fileDescriptor) else {
                logger.critical("the inherited socket is not a listening Unix stream socket", metadata: ["name": "\(inherited.name)"])
                throw ExitCode(1)
            }
            options.inheritedSocket = inherited.fileDescriptor
        }
        if let freedesktop {
            let bridgeMemory = bridgeMemory
            options.companions.append { board, client in
                let server = NotificationServer(
                    backend: BridgeBackend(client: client), ownership: freedesktop == .replace ? .replace : .ifFree,
                    version: ProtocolInfo.toolVersion, memory: bridgeMemory,
                    onState: { state in
                        board.set("freedesktop", state.description)
                        switch state {
                        case .owner, .starting: logger.info("\(state.description)")
                        case .notOwner, .failed: logger.warning("\(state.description)")
                        }
                    },
                    onProblem: { problem in logger.warning("\(problem)") }
                )
                return BridgeService(server: server, loop: client.loop)
            }
        }
        let notifier = ServiceNotifier()
        if notifier.isSupervised {
            options.serviceManager.ready = { notifier.ready(status: $0) }
            options.serviceManager.status = { notifier.status($0) }
            options.serviceManager.reloading = { notifier.reloading() }
            options.serviceManager.stopping = { notifier.stopping() }
            if let interval = ServiceNotifier.watchdogInterval() {
                options.serviceManager.watchdog = TimeAmount(interval)
                options.serviceManager.watchdogPing = { notifier.watchdog() }
            }
        }
        do {
            let server = ToastServer(options: options, logger: logger)
            // The server's hub holds the restored state now; this copy lets go of it.
            options.storage = options.storage.handedOver
            try server.run()
        } catch let problem as SocketFile.Problem {
            logger.critical("\(problem)")
            throw ExitCode(1)
        }
    }
}

