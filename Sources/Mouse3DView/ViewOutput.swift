import Mouse3DCore

/// The live view as a pipeline output: each update's attitude goes to the view's mailbox (latest
/// wins), from where the server pushes it to the pages at most 60 times a second.
public final class ViewOutput: AttitudeSink {
    /// The server.
    public let server: ViewServer

    /// Whether updates carry a send time on this machine's clock (a receiver measuring latency).
    public let showsLatency: Bool

    /// An output into `server`; `showsLatency` when the updates' send times are on this machine's clock.
    public init(server: ViewServer, showsLatency: Bool = false) {
        self.server = server
        self.showsLatency = showsLatency
    }

    public func write(_ update: AttitudeUpdate) throws {
        let f = update.frame
        let degrees = 180 / Double.pi
        server.publish(
            label: update.stream.description, sequence: update.sequence, roll: Double(f.roll) * degrees,
            pitch: Double(f.pitch) * degrees, yaw: Double(f.yaw) * degrees, nanoseconds: update.receivedNanoseconds,
            sentNanoseconds: showsLatency ? update.sentNanoseconds : nil)
    }

    public func sourceEnded() throws { server.sourceEnded() }

    public func finish() { server.stop() }
}
