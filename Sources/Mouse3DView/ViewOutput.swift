import Mouse3DCore

/// The live view as a pipeline output: each update's attitude goes to the view's mailbox (latest
/// wins), from where the server pushes it to the pages at most 60 times a second.
public final class ViewOutput: AttitudeOutput {
    /// The server.
    public let server: ViewServer

    /// An output into `server`.
    public init(server: ViewServer) { self.server = server }

    public func write(_ update: AttitudeUpdate) throws {
        let f = update.frame
        let degrees = 180 / Double.pi
        server.publish(
            label: update.stream.description, sequence: update.sequence, roll: Double(f.roll) * degrees,
            pitch: Double(f.pitch) * degrees, yaw: Double(f.yaw) * degrees, nanoseconds: update.receivedNanoseconds)
    }

    public func finish() { server.stop() }
}
