import Mouse3DCore
import Mouse3DLinux

/// Head tracking for flight and racing sims: every attitude of one stream goes to opentrack's "UDP
/// over network" input as a 48-byte pose (``OpentrackPose``). With several senders, the first stream
/// is followed until it ends, then the next one to send. Owned by the event loop's thread.
public final class OpentrackOutput: AttitudeSink {
    /// Where poses go.
    public let address: SocketAddress
    let socket: UDPSocket
    var following: StreamLabel?
    /// Datagrams sent, and those the kernel did not take.
    public private(set) var sent = 0, notDelivered = 0

    /// Sends to `address`, from a socket connected to it (so the kernel queues nothing that anyone
    /// else sends to its port) with the smallest receive buffer (it never reads).
    public init(to address: SocketAddress) throws(SystemCallError) {
        self.address = address
        socket = try UDPSocket(family: address.family)
        try socket.connect(to: address)
        try socket.setReceiveBufferSize(0)  // the kernel's minimum, about 2 KiB
    }

    /// The address poses are sent from.
    public var localAddress: SocketAddress? { try? socket.localAddress() }
    /// Bytes held in the socket's receive queue (0: nothing piles up).
    public var pendingBytes: Int? { socket.pendingBytes() }

    public func write(_ update: AttitudeUpdate) throws {
        if following == nil { following = update.stream }
        guard following === update.stream else { return }
        let a = OpentrackPose.angles(
            rollRadians: Double(update.frame.roll), pitchRadians: Double(update.frame.pitch),
            yawRadians: Double(update.frame.yaw))
        let bytes = OpentrackPose.datagram(yaw: a.yaw, pitch: a.pitch, roll: a.roll)
        let outcome = try bytes.withUnsafeBytes { try socket.send($0, to: address) }
        if outcome == .sent { sent += 1 } else { notDelivered += 1 }
    }

    public func streamEnded(_ stream: StreamLabel) {
        if following === stream { following = nil }
    }

    /// One line on what was sent.
    public var summary: String {
        "opentrack: \(sent) poses sent to \(address)" + (notDelivered > 0 ? ", \(notDelivered) not delivered" : "")
    }
}
