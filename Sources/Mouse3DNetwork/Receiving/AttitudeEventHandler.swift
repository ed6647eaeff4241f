/// What takes a receiver's events (``AttitudeReceiver/Event``) as they happen.
///
/// Why not a closure: an event is handed down through several calls per datagram (read, checked,
/// opened, met by its stream), and a closure's context was retained and released at each of them
/// for every frame, four pairs of atomic operations a frame (the specialized closure is passed its
/// captured reception as an owned argument: callgrind, `objdump`). A generic handler is specialized
/// for the reception and passed down without any.
protocol AttitudeEventHandler {
    func handle(_ event: AttitudeReceiver.Event) throws
}

/// A closure as a handler, for the receiver's public entry points (tests, tools).
struct ClosureEventHandler: AttitudeEventHandler {
    let body: (AttitudeReceiver.Event) throws -> Void

    func handle(_ event: AttitudeReceiver.Event) throws { try body(event) }
}
