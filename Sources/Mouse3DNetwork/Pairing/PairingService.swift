import Mouse3DCore
import Mouse3DLinux

/// The socket side of pairing: the receiver waits for one sender with a code; the sender sends its
/// hello and confirmation (resent every 250 ms) until the receiver answers.
public enum PairingService {
    /// How a pairing ended, for the user.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What happened and what to do.
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Waits on `socket` (bound to the pairing port) for a sender that knows `code`, for at most
    /// `timeoutNanoseconds`, on `loop` (a stop signal there interrupts it). Returns the paired
    /// sender; the verdict is repeated for another second in case it was lost. A sender that says
    /// hello must confirm within `exchangeTimeoutNanoseconds`, or the attempt ends (a silent hello
    /// cannot hold the pairing window, and the code still buys one guess only).
    public static func respond(
        on socket: UDPSocket, responder: PairingResponder, timeoutNanoseconds: UInt64,
        exchangeTimeoutNanoseconds: UInt64 = 10_000_000_000,
        loop: EventLoop, now: @escaping () -> String
    ) throws -> PairedPeer {
        let deadline = MonotonicClock.nanoseconds() + timeoutNanoseconds
        var buffer = [UInt8](repeating: 0, count: 512)
        var result: Result<PairedPeer, Failure>?
        var engagedSince: UInt64?
        let exchange = loop.timer(deadline: { engagedSince.map { $0 + exchangeTimeoutNanoseconds } }) { _ in
            let who = responder.engagedWith ?? "a sender"
            result = .failure(
                Failure(
                    "\(who) said hello and did not finish pairing within \(exchangeTimeoutNanoseconds / 1_000_000_000) s; nothing was stored. "
                        + "Run `mouse3d pair` again for a new code"))
            engagedSince = nil
        }
        defer { loop.cancel(exchange) }
        let registration = loop.watch(socket.descriptor) {
            while result == nil,
                let (length, source) = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) })
            {
                guard length <= buffer.count else { continue }
                let (answer, outcome) = responder.handle(
                    Array(buffer[0..<length]), from: source.description, pairedAt: now())
                if let answer { _ = try answer.withUnsafeBytes { try socket.send($0, to: source) } }
                if responder.engagedWith != nil && engagedSince == nil { engagedSince = MonotonicClock.nanoseconds() }
                switch outcome {
                case .paired(let peer)?:
                    result = .success(peer)
                case .wrongCode(let name, let fingerprint)?:
                    result = .failure(
                        Failure(
                            "'\(name)' (\(fingerprint)) at \(source) used a wrong code; nothing was stored. Run `mouse3d pair` again for a new code"
                        ))
                case nil:
                    break
                }
            }
        }
        defer { loop.cancel(registration) }
        let ending = try loop.run(until: deadline) { result != nil }
        if ending != nil && result == nil { throw Failure("interrupted; nothing was stored") }
        switch result {
        case .success(let peer)?:
            try linger(on: socket, responder: responder, loop: loop, now: now)
            return peer
        case .failure(let failure)?:
            throw failure
        case nil:
            throw Failure(
                "no sender paired within \(timeoutNanoseconds / 1_000_000_000) s; run `mouse3d pair` again for a new code"
            )
        }
    }

    /// Answers repeated confirmations for a second, so a lost verdict does not leave the sender unsure.
    private static func linger(
        on socket: UDPSocket, responder: PairingResponder, loop: EventLoop, now: @escaping () -> String
    ) throws {
        var buffer = [UInt8](repeating: 0, count: 512)
        let registration = loop.watch(socket.descriptor) {
            while let (length, source) = try? buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }),
                length <= buffer.count
            {
                if let answer = responder.handle(Array(buffer[0..<length]), from: source.description, pairedAt: now())
                    .answer
                {
                    _ = try? answer.withUnsafeBytes { try socket.send($0, to: source) }
                }
            }
        }
        defer { loop.cancel(registration) }
        _ = try loop.run(until: MonotonicClock.nanoseconds() + 1_000_000_000)
    }

    /// Pairs with the receiver listening at `address` (its pairing port), using `code`. Returns the
    /// receiver's record; its `address` is `host` joined with the stream port the receiver gave.
    public static func initiate(
        identity: PeerIdentity, code: PairingCode, address: SocketAddress, host: String,
        timeoutNanoseconds: UInt64 = 10_000_000_000,
        now: @escaping () -> String
    ) throws -> PairedPeer {
        let socket = try UDPSocket(family: address.family)
        let initiator = PairingInitiator(identity: identity, code: code)
        let loop = try EventLoop(signals: [])
        let deadline = MonotonicClock.nanoseconds() + timeoutNanoseconds
        var buffer = [UInt8](repeating: 0, count: 512)
        var nextSend: UInt64 = 0
        var heard = false
        var result: Result<PairedPeer, Failure>?
        loop.timer(deadline: { nextSend }) { current in
            _ = try initiator.pending.withUnsafeBytes { try socket.send($0, to: address) }
            nextSend = current + 250_000_000
        }
        loop.watch(socket.descriptor) {
            while result == nil,
                let (length, source) = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) })
            {
                guard source == address || address.isWildcard, length <= buffer.count else { continue }
                switch initiator.handle(Array(buffer[0..<length]), pairedAt: now()) {
                case .ignore: break
                case .send(let bytes):
                    heard = true
                    _ = try bytes.withUnsafeBytes { try socket.send($0, to: address) }
                    nextSend = MonotonicClock.nanoseconds() + 250_000_000
                case .failed(let reason):
                    // Let the receiver hear the confirmation, so its user learns of the wrong code.
                    _ = try? initiator.pending.withUnsafeBytes { try socket.send($0, to: address) }
                    result = .failure(Failure(reason))
                case .paired(var peer):
                    let port = peer.address.flatMap { UInt16($0.dropFirst()) } ?? StreamDefaults.port
                    peer.address = SocketAddress.text(host: host, port: port)
                    result = .success(peer)
                }
            }
        }
        _ = try loop.run(until: deadline) { result != nil }
        switch result {
        case .success(let peer)?: return peer
        case .failure(let failure)?: throw failure
        case nil:
            throw Failure(
                heard
                    ? "the receiver at \(address) did not confirm; check `mouse3d pair --list` there and pair again"
                    : "no answer from \(address): is `mouse3d pair` running there (and UDP port \(address.port) open)?")
        }
    }
}
