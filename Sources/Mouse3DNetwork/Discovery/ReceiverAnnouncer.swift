import Mouse3DCore
import Mouse3DLinux

/// Announces a running `receive` on the local network (`_mouse3d._udp` through Avahi) and reports
/// how that goes; without Avahi it says so once and the receiver works as before (senders name it
/// with --to).
public final class ReceiverAnnouncer {
    /// The Avahi client.
    public let discovery: ServiceDiscovery
    private let diagnostics: Diagnostics
    private let port: UInt16
    private var saidUnavailable = false

    /// Starts announcing, or returns nil (having said why) when there is no Avahi to reach.
    public init?(_ announcement: ReceiverAnnouncement, port: UInt16, loopbackOnly: Bool, diagnostics: Diagnostics) {
        self.diagnostics = diagnostics
        self.port = port
        do {
            discovery = try ServiceDiscovery(
                announcing: ServiceAnnouncement(
                    name: announcement.name, type: ReceiverAnnouncement.serviceType, port: port,
                    txt: announcement.txtEntries,
                    loopbackOnly: loopbackOnly),
                browsing: nil)
        } catch {
            diagnostics.say(
                "discovery: Avahi is not available (\(error)): not announced; senders reach this receiver with --to HOST:\(port)"
            )
            return nil
        }
    }

    /// Reports what Avahi says, as it says it, on `loop`.
    public func attach(to loop: EventLoop) {
        loop.watch(discovery.descriptor) { [unowned self] in handleEvents() }
    }

    /// Reports what Avahi said since the last call.
    public func handleEvents() {
        for event in discovery.takeEvents() {
            switch event {
            case .daemonUnavailable(let why):
                guard !saidUnavailable else { continue }
                saidUnavailable = true
                diagnostics.say(
                    "discovery: \(why): not announced (announced when it starts); senders reach this receiver with --to HOST:\(port)"
                )
            case .daemonRunning:
                saidUnavailable = false
            case .published(let name):
                diagnostics.say(
                    "discovery: announced as '\(TerminalText.escaped(name))' (\(ReceiverAnnouncement.serviceType), port \(port))"
                )
            case .publishFailed(let why):
                diagnostics.say(
                    "discovery: could not announce this receiver: \(why); senders reach it with --to HOST:\(port)")
            case .found, .removed, .browseFailed:
                break
            }
        }
    }
}
