import Crypto
import FoundationEssentials
import Glibc
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork
import Testing

/// A sender and receiver that share a pairing secret, without the exchange.
struct SealedPair {
    let sender = PeerIdentity.generate(name: "deck")
    let receiver = PeerIdentity.generate(name: "desk")
    let secret: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }

    var senderRecord: PairedPeer {
        PairedPeer(
            role: .sender, name: "deck", publicKey: sender.publicKey, secret: secret, address: nil, epoch: 0,
            pairedAt: "t")
    }

    func sealer(epoch: UInt32 = 1, secret other: [UInt8]? = nil, algorithm: SealingAlgorithm = .chacha20Poly1305)
        -> DatagramSealer
    {
        DatagramSealer(
            secret: other ?? secret, senderID: sender.id, receiverID: receiver.id, epoch: epoch, algorithm: algorithm)
    }

    func opener(floors: [[UInt8]: UInt64] = [:], epoch: UInt32 = 0) -> SealedStreamOpener {
        var record = senderRecord
        record.epoch = epoch
        return SealedStreamOpener(receiverID: receiver.id, peers: [record], sequenceFloors: floors)
    }

    static func plain(_ sequence: UInt64, stream: UInt32 = 9, roll: Float = 0.25) -> [UInt8] {
        AttitudeDatagram(
            streamID: stream, sequence: sequence, sentNanoseconds: 1234 + sequence, buttons: [.clutch],
            frame: AttitudeFrame(roll: roll, pitch: -0.5, yaw: 1)
        ).encoded
    }

    static func seal(_ sealer: inout DatagramSealer, _ sequence: UInt64, roll: Float = 0.25, stream: UInt32 = 9) throws
        -> [UInt8]
    {
        var out: [UInt8] = []
        sealer.seal(plain(sequence, stream: stream, roll: roll), into: &out)
        return out
    }
}

extension SealedStreamOpener {
    /// Why `bytes` was refused by a receiver that stores nothing (nil: accepted).
    func refusal(_ bytes: [UInt8]) -> Refusal? { bytes.withUnsafeBytes { openStoringNothing($0) }.refusal }
}

/// A receiver's session store in a test: `now` answers stores on the spot (nil: all succeed); with
/// `ahead` set, stores in the background are taken (and given to it).
final class TestStore: SessionStore {
    let opener: SealedStreamOpener
    var now: ((PairedPeer) -> Bool)?
    var ahead: ((PairedPeer) -> Void)?
    init(_ opener: SealedStreamOpener) { self.opener = opener }

    /// False: a store in the background is not started (as after a failure in the last second).
    var startsInBackground = true

    var storesInBackground: Bool { ahead != nil }
    func storeNow(_ record: PairedPeer) -> Bool { now?(record) ?? true }
    func storeInBackground(_ record: PairedPeer) -> Bool {
        guard startsInBackground else { return false }
        ahead?(record)
        return ahead != nil
    }

    /// Opens `bytes` as a receiver with this store would: stores what the opener asks for, and says
    /// why it was refused (held: awaiting storage; nil: accepted).
    func refusal(_ bytes: [UInt8]) -> Refusal? {
        var opening = bytes.withUnsafeBytes { opener.open($0, inBackground: storesInBackground) }
        if case .storeFirst(let record) = opening { opening = opener.finishAfterStore(stored: storeNow(record)) }
        switch opening {
        case .frameWithNews(_, _, let record?), .hold(let record?): _ = storeInBackground(record)
        default: break
        }
        return opening.refusal
    }
}

@Suite("Sealed datagrams")
struct SealedStreamTests {
    let pair = SealedPair()

    @Test("A sealed datagram is 68 bytes, hides the frame, and opens to exactly what was sealed")
    func roundTrip() throws {
        var sealer = pair.sealer()
        let bytes = try SealedPair.seal(&sealer, 0)
        #expect(bytes.count == SealedDatagramLayout.byteCount && bytes[3] == 1)
        let plain = SealedPair.plain(0)
        #expect(Array(bytes[28..<52]) != Array(plain[16..<40]), "payload must not travel in clear")
        let opener = pair.opener()
        guard case .frameWithNews(let o, let started, _) = bytes.withUnsafeBytes({ opener.openStoringNothing($0) })
        else {
            Issue.record("did not open")
            return
        }
        #expect(o.datagram == (try AttitudeDatagram.decode(plain).get()))
        #expect(opener.name(ofSender: o.senderKey) == "deck" && started?.name == "deck")
    }

    @Test("Forged, truncated, extended, wrong-key and unknown-sender datagrams are refused with their reason")
    func forgeries() throws {
        var sealer = pair.sealer()
        let good = try SealedPair.seal(&sealer, 0)
        let opener = pair.opener()
        var forged = good
        for i in 28..<68 { forged[i] = UInt8.random(in: 0...255) }
        #expect(opener.refusal(forged) == .badTag)
        #expect(opener.refusal(Array(good.prefix(67))) == .wrongSize)
        #expect(opener.refusal(good + [0]) == .wrongSize)
        var wrongKey = pair.sealer(secret: [UInt8](repeating: 7, count: 32))
        #expect(opener.refusal(try SealedPair.seal(&wrongKey, 0)) == .badTag)
        let stranger = DatagramSealer(
            secret: pair.secret, senderID: [1, 2, 3, 4, 5, 6, 7, 8], receiverID: pair.receiver.id, epoch: 1)
        var s = stranger
        #expect(opener.refusal(try SealedPair.seal(&s, 0)) == .unknownSender)
        #expect(opener.refusal(SealedPair.plain(0)) == .unsealed)
        #expect(opener.refusal(Array(repeating: 0, count: 12)) == .unsealed)
        #expect(opener.refusal([]) == .notMouse3D)
        // None of that disturbed the genuine stream.
        #expect(opener.refusal(good) == nil)
    }

    @Test("Flipping any single bit of a sealed datagram gets it refused")
    func bitFlips() throws {
        var sealer = pair.sealer()
        let good = try SealedPair.seal(&sealer, 5)
        var accepted = 0
        for byte in 0..<good.count {
            for bit in 0..<8 {
                let opener = pair.opener()
                var flipped = good
                flipped[byte] ^= UInt8(1 << bit)
                if opener.refusal(flipped) == nil { accepted += 1 }
            }
        }
        #expect(accepted == 0, "\(accepted) of \(good.count * 8) single-bit flips were accepted")
    }

    @Test("Replays are refused; reordering is accepted within the window and refused beyond it")
    func replayWindow() throws {
        var sealer = pair.sealer()
        let opener = pair.opener()
        let datagrams = try (0..<3000).map { try SealedPair.seal(&sealer, UInt64($0)) }
        #expect(opener.refusal(datagrams[100]) == nil)
        #expect(opener.refusal(datagrams[100]) == .replayed)
        #expect(opener.refusal(datagrams[50]) == nil, "late but within the window")
        #expect(opener.refusal(datagrams[50]) == .replayed)
        #expect(opener.refusal(datagrams[2999]) == nil)
        #expect(opener.refusal(datagrams[2999 - 2047]) == nil, "the oldest still in a 2048 window")
        #expect(opener.refusal(datagrams[2999 - 2048]) == .replayed, "beyond the window")
        #expect(opener.refusal(datagrams[0]) == .replayed)
    }

    @Test("A new epoch (sender restart) is adopted only once it verifies; older epochs are refused after")
    func epochs() throws {
        let opener = pair.opener()
        var first = pair.sealer(epoch: 1)
        var second = pair.sealer(epoch: 2)
        let old = try (0..<10).map { try SealedPair.seal(&first, UInt64($0)) }
        #expect(opener.refusal(old[0]) == nil)
        // A forged datagram claiming epoch 2 must not move the receiver on.
        var forged = try SealedPair.seal(&second, 0)
        forged[60] ^= 1
        #expect(opener.refusal(forged) == .badTag)
        #expect(opener.refusal(old[1]) == nil)
        // The restarted sender's first genuine datagram does.
        #expect(opener.refusal(try SealedPair.seal(&second, 0)) == nil)
        #expect(opener.refusal(old[2]) == .staleEpoch)
        #expect(opener.highWaterMarks.first?.epoch == 2)
    }

    @Test("After a receiver restart, what the last run accepted in the stored epoch stays refused")
    func floorsAcrossRestart() throws {
        var sealer = pair.sealer(epoch: 3)
        let datagrams = try (0..<20).map { try SealedPair.seal(&sealer, UInt64($0)) }
        let firstRun = pair.opener(epoch: 0)
        for d in datagrams[0..<10] { #expect(firstRun.refusal(d) == nil) }
        let mark = try #require(firstRun.highWaterMarks.first)
        #expect(mark.epoch == 3 && mark.nextSequence == 10)
        let secondRun = pair.opener(floors: [pair.sender.id: mark.nextSequence], epoch: mark.epoch)
        #expect(secondRun.refusal(datagrams[9]) == .replayed)
        #expect(secondRun.refusal(datagrams[0]) == .replayed)
        #expect(secondRun.refusal(datagrams[10]) == nil)
    }

    @Test("Keys rotate every 2^24 datagrams and the stream opens across the boundary")
    func rotation() throws {
        var sealer = pair.sealer()
        let opener = pair.opener()
        let boundary: UInt64 = 1 << SealedDatagramLayout.generationShift
        for sequence in [boundary - 2, boundary - 1, boundary, boundary + 1] {
            #expect(opener.refusal(try SealedPair.seal(&sealer, sequence)) == nil, "sequence \(sequence)")
        }
        // The same plaintext and counter position under another generation gives another ciphertext.
        var a = pair.sealer()
        var b = pair.sealer()
        let x = try SealedPair.seal(&a, 3)
        let y = try SealedPair.seal(&b, 3 + boundary)
        #expect(Array(x[28..<52]) != Array(y[28..<52]))
    }

    @Test("Revocation: once a sender is removed from the peers, its next datagram is refused")
    func revocation() throws {
        var sealer = pair.sealer()
        let opener = pair.opener()
        #expect(opener.refusal(try SealedPair.seal(&sealer, 0)) == nil)
        opener.replacePeers([])
        #expect(opener.refusal(try SealedPair.seal(&sealer, 1)) == .unknownSender)
    }

    @Test("Through a real socket: only the genuine frames come out; every refusal is counted by reason")
    func receiverCounts() throws {
        let opener = pair.opener()
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: opener)
        let socket = try UDPSocket(family: r.localAddress.family)
        var sealer = pair.sealer()
        let genuine = try (0..<5).map { try SealedPair.seal(&sealer, UInt64($0)) }
        var flipped = genuine[4]
        flipped[40] ^= 0x80
        var wrongKey = pair.sealer(secret: Array(repeating: 1, count: 32))
        let junk: [[UInt8]] = [
            Array(genuine[0].prefix(30)), flipped, try SealedPair.seal(&wrongKey, 9), SealedPair.plain(1), [1, 2, 3]
        ]
        for d in genuine[0..<3] + junk + [genuine[1], genuine[3]] {
            _ = try d.withUnsafeBytes { try socket.send($0, to: r.localAddress) }
        }
        var frames: [UInt64] = []
        var refused: [Refusal] = []
        let end = MonotonicClock.nanoseconds() + 1_000_000_000
        while frames.count < 4 && MonotonicClock.nanoseconds() < end {
            _ = try EventLoop.waitUntilReadable([r.descriptor], timeoutNanoseconds: 10_000_000)
            try r.drain { event in
                switch event {
                case .frame(let f): frames.append(f.sequence)
                case .refused(_, _, let reason, _): refused.append(reason)
                default: break
                }
            }
        }
        #expect(frames == [0, 1, 2, 3])
        #expect(r.refusals[.wrongSize] == 1)
        #expect(r.refusals[.badTag] == 2)
        #expect(r.refusals[.unsealed] == 1)
        #expect(r.refusals[.notMouse3D] == 1)
        #expect(r.refusals[.replayed] == 1)
        #expect(r.totals.dropped == 6)
        #expect(refused.count == 1, "the first refusal from a source is reported, later ones summed: \(refused)")
    }

    @Test("A source that keeps being refused is rate limited: dropped unread after its burst")
    func rateLimit() throws {
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: pair.opener())
        let socket = try UDPSocket(family: r.localAddress.family, blocking: true)
        let junk = [UInt8](repeating: 0x4D, count: 68)
        for _ in 0..<1500 { _ = try junk.withUnsafeBytes { try socket.send($0, to: r.localAddress) } }
        var total = 0
        let end = MonotonicClock.nanoseconds() + 1_000_000_000
        while total < 1500 && MonotonicClock.nanoseconds() < end {
            _ = try EventLoop.waitUntilReadable([r.descriptor], timeoutNanoseconds: 10_000_000)
            total += try r.drain { _ in }
        }
        let limited = r.refusals[.rateLimited]
        #expect(total == 1500)
        #expect(limited >= 400 && limited <= 500, "1000-datagram burst, then limited: \(r.refusals.summary)")
    }
}

@Suite("The sealing AEADs are the standard ones")
struct AEADInteroperabilityTests {
    static var algorithms: [SealingAlgorithm] {
        FrameCipher.aes256GCMAvailable ? SealingAlgorithm.allCases : [.chacha20Poly1305]
    }

    func seal(_ cipher: FrameCipher, nonce: [UInt8], ad: [UInt8], message: [UInt8]) -> (
        ciphertext: [UInt8], tag: [UInt8]
    ) {
        var ciphertext = [UInt8](repeating: 0, count: message.count)
        var tag = [UInt8](repeating: 0, count: 16)
        nonce.withUnsafeBytes { n in
            ad.withUnsafeBytes { a in
                message.withUnsafeBytes { m in
                    ciphertext.withUnsafeMutableBytes { c in
                        tag.withUnsafeMutableBytes { t in
                            cipher.seal(nonce: n, associatedData: a, plaintext: m, ciphertext: c, tag: t)
                        }
                    }
                }
            }
        }
        return (ciphertext, tag)
    }

    func open(_ cipher: FrameCipher, nonce: [UInt8], ad: [UInt8], ciphertext: [UInt8], tag: [UInt8]) -> [UInt8]? {
        var opened = [UInt8](repeating: 0, count: ciphertext.count)
        let ok = nonce.withUnsafeBytes { n in
            ad.withUnsafeBytes { a in
                ciphertext.withUnsafeBytes { c in
                    tag.withUnsafeBytes { t in
                        opened.withUnsafeMutableBytes { p in
                            cipher.open(nonce: n, associatedData: a, ciphertext: c, tag: t, plaintext: p)
                        }
                    }
                }
            }
        }
        return ok ? opened : nil
    }

    @Test("What libsodium seals, swift-crypto opens, and the other way round", arguments: algorithms)
    func crossCheck(algorithm: SealingAlgorithm) throws {
        let key: [UInt8] = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let nonce: [UInt8] = [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
        let ad: [UInt8] = Array("header".utf8)
        let message: [UInt8] = (0..<24).map { UInt8($0) }
        let cipher = FrameCipher(algorithm: algorithm, key: key)
        let (ciphertext, tag) = seal(cipher, nonce: nonce, ad: ad, message: message)
        let reversed = Array(message.reversed())
        let symmetric = SymmetricKey(data: key)
        switch algorithm {
        case .chacha20Poly1305:
            let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
            #expect(Array(try ChaChaPoly.open(box, using: symmetric, authenticating: ad)) == message)
            let other = try ChaChaPoly.seal(
                reversed, using: symmetric, nonce: ChaChaPoly.Nonce(data: nonce), authenticating: ad)
            #expect(
                open(cipher, nonce: nonce, ad: ad, ciphertext: Array(other.ciphertext), tag: Array(other.tag))
                    == reversed)
        case .aes256GCM:
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
            #expect(Array(try AES.GCM.open(box, using: symmetric, authenticating: ad)) == message)
            let other = try AES.GCM.seal(
                reversed, using: symmetric, nonce: AES.GCM.Nonce(data: nonce), authenticating: ad)
            #expect(
                open(cipher, nonce: nonce, ad: ad, ciphertext: Array(other.ciphertext), tag: Array(other.tag))
                    == reversed)
        }
        var flipped = tag
        flipped[0] ^= 1
        #expect(open(cipher, nonce: nonce, ad: ad, ciphertext: ciphertext, tag: flipped) == nil)
    }

    @Test("Both sealing kinds open", arguments: algorithms)
    func kinds(algorithm: SealingAlgorithm) throws {
        let pair = SealedPair()
        var sealer = pair.sealer(algorithm: algorithm)
        let bytes = try SealedPair.seal(&sealer, 0)
        #expect(bytes[3] == algorithm.rawValue)
        let opener = pair.opener()
        #expect(opener.refusal(bytes) == nil)
    }

    @Test(
        "A datagram relabelled with the other sealing kind does not open",
        .enabled(if: FrameCipher.aes256GCMAvailable, "AES-256-GCM is not available on this CPU"),
        arguments: algorithms)
    func relabelled(algorithm: SealingAlgorithm) throws {
        let pair = SealedPair()
        var sealer = pair.sealer(algorithm: algorithm)
        var relabelled = try SealedPair.seal(&sealer, 0)
        relabelled[3] = algorithm == .aes256GCM ? 1 : 2
        #expect(pair.opener().refusal(relabelled) == .badTag)
    }
}

@Suite("Durable replay floors")
struct ReservationTests {
    let pair = SealedPair()

    @Test(
        "A new epoch, and each sequence beyond the last reservation, is stored before it is accepted; what cannot be stored is refused"
    )
    func reservations() throws {
        let opener = pair.opener()
        let store = TestStore(opener)
        var stored: [(UInt32, UInt64)] = []
        var storable = true
        store.now = { record in
            guard storable else { return false }
            stored.append((record.epoch, record.nextSequence))
            return true
        }
        var sealer = pair.sealer(epoch: 7)
        let span = SealedStreamOpener.reservationSpan
        #expect(store.refusal(try SealedPair.seal(&sealer, 0)) == nil)
        #expect(stored.count == 1 && stored[0] == (7, span), "the epoch's floor is stored before its first frame")
        for s in 1..<span { #expect(store.refusal(try SealedPair.seal(&sealer, s)) == nil) }
        #expect(stored.count == 1, "nothing stored within the reservation")
        #expect(store.refusal(try SealedPair.seal(&sealer, span)) == nil)
        #expect(stored.count == 2 && stored[1] == (7, 2 * span))
        storable = false
        #expect(store.refusal(try SealedPair.seal(&sealer, 2 * span)) == .notStored, "not stored: refused")
        var next = pair.sealer(epoch: 8)
        #expect(
            store.refusal(try SealedPair.seal(&next, 0)) == .notStored,
            "a new epoch that cannot be stored is not adopted")
        storable = true
        #expect(store.refusal(try SealedPair.seal(&sealer, 2 * span + 1)) == nil, "the old epoch carries on")
        // A restart from what was stored refuses everything the first run may have accepted.
        var record = pair.senderRecord
        record.epoch = stored.last!.0
        record.nextSequence = stored.last!.1
        let restarted = SealedStreamOpener(receiverID: pair.receiver.id, peers: [record])
        var replay = pair.sealer(epoch: 7)
        #expect(record.nextSequence == 3 * span + 1, "reserved from 2 * span + 1")
        for s in [0, span, 2 * span, 2 * span + 1, 3 * span] {
            #expect(restarted.refusal(try SealedPair.seal(&replay, s)) == .replayed)
        }
        #expect(restarted.refusal(try SealedPair.seal(&replay, 3 * span + 1)) == nil, "beyond the stored floor")
    }

    @Test(
        "Reservations renewed ahead: half-way through one the next is asked for once, and a stream never meets the synchronous store while renewals land in time"
    )
    func renewedAhead() throws {
        let opener = pair.opener()
        let store = TestStore(opener)
        var synchronous: [(UInt32, UInt64)] = []
        var ahead: [PairedPeer] = []
        store.now = { record in
            synchronous.append((record.epoch, record.nextSequence))
            return true
        }
        store.ahead = { ahead.append($0) }
        var sealer = pair.sealer(epoch: 4)
        let span = SealedStreamOpener.reservationSpan
        // A new epoch: stored in the background, its datagrams held (refused as awaiting storage, the
        // receiver keeps them) until it is stored, then accepted when offered again.
        let first = try SealedPair.seal(&sealer, 0)
        let second = try SealedPair.seal(&sealer, 1)
        #expect(store.refusal(first) == .awaitingStorage)
        #expect(store.refusal(second) == .awaitingStorage)
        #expect(
            synchronous.isEmpty && ahead.count == 1 && ahead[0].epoch == 4 && ahead[0].nextSequence == span,
            "asked once: \(ahead.count)")
        #expect(opener.reservationStored(ahead.removeFirst()), "a new epoch's store: release the held datagrams")
        #expect(store.refusal(first) == nil)
        #expect(store.refusal(second) == nil)
        #expect(store.refusal(first) == .replayed, "adopted with a fresh window")
        for s in 2..<span / 2 { #expect(store.refusal(try SealedPair.seal(&sealer, s)) == nil) }
        #expect(ahead.isEmpty)
        synchronous.append((4, span))  // the epoch's own store, counted like the synchronous one below
        #expect(store.refusal(try SealedPair.seal(&sealer, span / 2)) == nil)
        #expect(
            ahead.count == 1 && ahead[0].epoch == 4 && ahead[0].nextSequence == span / 2 + span,
            "asked half-way, for a span beyond")
        for s in span / 2 + 1..<span / 2 + 100 { #expect(store.refusal(try SealedPair.seal(&sealer, s)) == nil) }
        #expect(ahead.count == 1, "asked once while it is being stored")
        opener.reservationStored(ahead[0])
        // The stream runs on past the first reservation without a synchronous store, renewing as it goes.
        for s in span / 2 + 100..<4 * span {
            #expect(store.refusal(try SealedPair.seal(&sealer, s)) == nil)
            if let last = ahead.last, ahead.count > 1, s == last.nextSequence - span { opener.reservationStored(last) }
        }
        #expect(synchronous.count == 1, "no datagram waited for the disk: \(synchronous)")
        #expect(ahead.count >= 6, "renewed every half span: \(ahead.count)")
        // A renewal that is late: the stream meets the synchronous store at the end of its reservation.
        let before = ahead.count
        var sequence = 4 * span
        while synchronous.count == 1 && sequence < 6 * span {
            #expect(store.refusal(try SealedPair.seal(&sealer, sequence)) == nil)
            sequence += 1
        }
        #expect(synchronous.count == 2, "the end of an unrenewed reservation is stored on the spot")
        #expect(ahead.count == before + 1, "one request while it was pending")
        let reservedOnTheSpot = try #require(synchronous.last).1
        // The late store lands after that one: it is for less, and must not pull the reservation back.
        opener.reservationStored(try #require(ahead.last))
        while sequence < reservedOnTheSpot {
            #expect(store.refusal(try SealedPair.seal(&sealer, sequence)) == nil)
            sequence += 1
        }
        #expect(synchronous.count == 2, "nothing stored on the spot before the reservation made on the spot runs out")
    }

    @Test(
        "What is asked to be stored only ever rises: late datagrams and stale completions cannot put a smaller reservation after a larger one"
    )
    func requestsOnlyRise() throws {
        let opener = pair.opener()
        let store = TestStore(opener)
        var stores: [UInt64] = []  // every reservation asked for, background and on the spot, in order
        var ahead: [PairedPeer] = []
        store.now = {
            stores.append($0.nextSequence)
            return true
        }
        store.ahead = {
            ahead.append($0)
            stores.append($0.nextSequence)
        }
        let span = SealedStreamOpener.reservationSpan
        var sealer = pair.sealer(epoch: 9)
        var sealed: [UInt64: [UInt8]] = [:]
        for s in [0, span / 2, span, 2 * span - 1, span / 2 + span + 1] { sealed[s] = try SealedPair.seal(&sealer, s) }
        #expect(store.refusal(sealed[0]!) == .awaitingStorage)
        #expect(opener.reservationStored(ahead.removeLast()))
        #expect(store.refusal(sealed[0]!) == nil)
        #expect(store.refusal(sealed[span / 2]!) == nil)  // renewal R1: 1.5 span, not done yet
        #expect(store.refusal(sealed[span]!) == nil)  // the reservation's end: stored on the spot
        #expect(store.refusal(sealed[2 * span - 1]!) == nil)  // renewal R2: 3 span - 1
        let r1 = ahead[0]
        opener.reservationStored(r1)  // R1's completion, late: stale
        #expect(store.refusal(sealed[span / 2 + span + 1]!) == nil)  // a late datagram, still in the window
        #expect(zip(stores, stores.dropFirst()).allSatisfy { $0 < $1 }, "asked for, in order: \(stores)")
        #expect(
            stores.count == 4,
            "R1, the store on the spot, R2; the late datagram and R1's completion ask for nothing: \(stores)")
    }

    @Test(
        "While a newer epoch is being stored the older one stores nothing after it; a failed background store falls back to storing on the spot"
    )
    func pendingEpochGuards() throws {
        let opener = pair.opener()
        let store = TestStore(opener)
        var synchronous: [(UInt32, UInt64)] = []
        var ahead: [PairedPeer] = []
        var storable = true
        store.now = { record in
            guard storable else { return false }
            synchronous.append((record.epoch, record.nextSequence))
            return true
        }
        store.ahead = { ahead.append($0) }
        let span = SealedStreamOpener.reservationSpan
        var old = pair.sealer(epoch: 5)
        #expect(store.refusal(try SealedPair.seal(&old, 0)) == .awaitingStorage)
        #expect(opener.reservationStored(ahead.removeFirst()))
        for s in 0..<span / 2 - 1 { #expect(store.refusal(try SealedPair.seal(&old, s)) == nil) }
        var new = pair.sealer(epoch: 6)
        #expect(store.refusal(try SealedPair.seal(&new, 0)) == .awaitingStorage)
        #expect(ahead.count == 1 && ahead[0].epoch == 6)
        // The old epoch: within its reservation it carries on, but it asks for no renewal ...
        for s in span / 2 - 1..<span { #expect(store.refusal(try SealedPair.seal(&old, s)) == nil) }
        #expect(ahead.count == 1, "no renewal of the old epoch while the new one is pending")
        // ... and beyond it, it is refused rather than stored after the newer epoch.
        #expect(store.refusal(try SealedPair.seal(&old, span)) == .staleEpoch)
        #expect(synchronous.isEmpty)
        // The new epoch's background store fails: its held datagrams, offered again, are stored on the spot.
        #expect(opener.reservationStored(ahead.removeFirst(), stored: false))
        storable = false
        #expect(store.refusal(try SealedPair.seal(&new, 0)) == .notStored)
        storable = true
        #expect(store.refusal(try SealedPair.seal(&new, 0)) == nil)
        #expect(synchronous.count == 1 && synchronous[0].0 == 6)
        #expect(store.refusal(try SealedPair.seal(&old, span - 1)) == .staleEpoch, "the old epoch is over")
    }

    @Test(
        "Held while a new epoch is stored: a replayed copy is refused, not held twice, and one sender (or its replayer) holds at most its share, so another's first datagrams still get through"
    )
    func heldBounds() throws {
        let other = SealedPair()
        let victimRecord = {
            var r = other.senderRecord
            r.name = "pad"
            return r
        }()
        let opener = SealedStreamOpener(receiverID: pair.receiver.id, peers: [pair.senderRecord, victimRecord])
        let store = TestStore(opener)
        var ahead: [PairedPeer] = []
        store.now = { _ in true }
        store.ahead = { ahead.append($0) }
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: opener, store: store)
        let socket = try UDPSocket(family: r.localAddress.family, blocking: true)
        func send(_ d: [UInt8]) throws { _ = try d.withUnsafeBytes { try socket.send($0, to: r.localAddress) } }
        var frames: [String: [UInt64]] = [:]
        func drainAll() throws {
            while try EventLoop.waitUntilReadable([r.descriptor], timeoutNanoseconds: 50_000_000) {
                try r.drain {
                    if case .frame(let f) = $0 { frames[f.stream.peer ?? "", default: []].append(f.sequence) }
                }
            }
        }
        // "deck" starts an epoch: its first datagram replayed 3 times, then 1499 more, all while its
        // epoch is being stored; then "pad" starts one (sealed for the same receiver, its own secret).
        var deck = pair.sealer(epoch: 2)
        let first = try SealedPair.seal(&deck, 0)
        for _ in 0..<4 { try send(first) }
        for s in 1..<1500 {
            try send(try SealedPair.seal(&deck, UInt64(s)))
            if s % 200 == 0 { try drainAll() }  // within the socket's buffer
        }
        var pad = DatagramSealer(
            secret: other.secret, senderID: other.sender.id, receiverID: pair.receiver.id, epoch: 7,
            algorithm: .chacha20Poly1305)
        for s in 0..<10 { try send(try SealedPair.seal(&pad, UInt64(s))) }
        try drainAll()
        #expect(frames.isEmpty, "nothing delivered before its epoch is stored: \(frames.mapValues(\.count))")
        #expect(r.refusals[.replayed] == 3, "the three copies: \(r.refusals.summary)")
        #expect(
            r.refusals[.notStored] == UInt64(1500 - AttitudeReceiver.maximumHeldPerSender),
            "deck beyond its share: \(r.refusals.summary)")
        #expect(ahead.map(\.epoch).sorted() == [2, 7])
        // Each store releases its own sender's: deck's first, pad's still held.
        try r.sessionsStored(ahead.filter { $0.epoch == 2 }.map { ($0, true) }) {
            if case .frame(let f) = $0 { frames[f.stream.peer ?? "", default: []].append(f.sequence) }
        }
        #expect(
            frames["deck"] == Array(0..<UInt64(AttitudeReceiver.maximumHeldPerSender)),
            "deck's share, in order, once each")
        #expect(frames["pad"] == nil, "pad's store is not done")
        try r.sessionsStored(ahead.filter { $0.epoch == 7 }.map { ($0, true) }) {
            if case .frame(let f) = $0 { frames[f.stream.peer ?? "", default: []].append(f.sequence) }
        }
        #expect(
            frames["pad"] == Array(0..<10),
            "the other sender's first datagrams all got through: \(frames.mapValues(\.count)), \(r.refusals.summary)")
    }

    @Test(
        "Two paired senders from one address with one stream id (one spoofing the other's source) are two streams: neither makes the other's frames stale"
    )
    func sameSourceTwoSenders() throws {
        let other = SealedPair()
        let padRecord = {
            var r = other.senderRecord
            r.name = "pad"
            return r
        }()
        let opener = SealedStreamOpener(receiverID: pair.receiver.id, peers: [pair.senderRecord, padRecord])
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: opener)
        let socket = try UDPSocket(family: r.localAddress.family, blocking: true)
        var deck = pair.sealer(epoch: 1)
        var pad = DatagramSealer(
            secret: other.secret, senderID: other.sender.id, receiverID: pair.receiver.id, epoch: 1,
            algorithm: .chacha20Poly1305)
        for s in 0..<10 {  // deck far ahead, pad from 0, interleaved, same source and stream id 9
            for d in [try SealedPair.seal(&deck, UInt64(1000 + s)), try SealedPair.seal(&pad, UInt64(s))] {
                _ = try d.withUnsafeBytes { try socket.send($0, to: r.localAddress) }
            }
        }
        var frames: [String: [UInt64]] = [:]
        var started = 0
        while try EventLoop.waitUntilReadable([r.descriptor], timeoutNanoseconds: 50_000_000) {
            try r.drain {
                if case .frame(let f) = $0 { frames[f.stream.peer ?? "", default: []].append(f.sequence) }
                if case .streamStarted = $0 { started += 1 }
            }
        }
        #expect(frames["deck"] == Array(1000..<1010) && frames["pad"] == Array(0..<10), "\(frames)")
        #expect(
            started == 2 && r.totals.reordered == 0, "two streams, nothing stale: \(started), \(r.totals.reordered)")
    }

    @Test(
        "A store asked for by an earlier pairing of the same sender, landing after it was paired again, is not taken as the new pairing's"
    )
    func storeOfEarlierPairing() throws {
        let opener = pair.opener()
        let store = TestStore(opener)
        var ahead: [PairedPeer] = []
        store.now = { _ in true }
        store.ahead = { ahead.append($0) }
        var sealer = pair.sealer(epoch: 5)
        #expect(store.refusal(try SealedPair.seal(&sealer, 0)) == .awaitingStorage)
        let earlier = try #require(ahead.first)
        // Paired again (same identity, new secret) while that store is in flight.
        var repaired = pair.senderRecord
        repaired.secret = [UInt8](repeating: 9, count: 32)
        opener.replacePeers([repaired])
        var fresh = DatagramSealer(
            secret: repaired.secret, senderID: pair.sender.id, receiverID: pair.receiver.id, epoch: 5,
            algorithm: .chacha20Poly1305)
        #expect(
            store.refusal(try SealedPair.seal(&fresh, 0)) == .awaitingStorage,
            "the new pairing's own epoch store is asked for")
        #expect(
            !opener.reservationStored(earlier), "the earlier pairing's store does not adopt the new pairing's epoch")
        #expect(store.refusal(try SealedPair.seal(&fresh, 1)) == .awaitingStorage, "still waiting for its own store")
        #expect(opener.reservationStored(try #require(ahead.last)))
        #expect(store.refusal(try SealedPair.seal(&fresh, 1)) == nil)
    }

    @Test(
        "A new session whose store in the background is not started (a store failed lately) is stored first, not held for ever"
    )
    func backgroundNotStarted() throws {
        let opener = pair.opener()
        let store = TestStore(opener)
        var onTheSpot: [(UInt32, UInt64)] = []
        store.now = {
            onTheSpot.append(($0.epoch, $0.nextSequence))
            return true
        }
        store.ahead = { _ in }
        store.startsInBackground = false
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: opener, store: store)
        let socket = try UDPSocket(family: r.localAddress.family, blocking: true)
        var sealer = pair.sealer(epoch: 3)
        for s in 0..<5 {
            let d = try SealedPair.seal(&sealer, UInt64(s))
            _ = try d.withUnsafeBytes { try socket.send($0, to: r.localAddress) }
        }
        var frames: [UInt64] = []
        var started = 0
        while try EventLoop.waitUntilReadable([r.descriptor], timeoutNanoseconds: 50_000_000) {
            try r.drain {
                if case .frame(let f) = $0 { frames.append(f.sequence) }
                if case .sessionStarted = $0 { started += 1 }
            }
        }
        #expect(frames == Array(0..<5), "delivered: \(frames), \(r.refusals.summary)")
        #expect(started == 1 && onTheSpot.count == 1 && onTheSpot[0].0 == 3, "stored first once: \(onTheSpot)")
    }

    @Test("The datagram that asks for a renewal with invalid angles is refused, and the next one asks again")
    func renewalOnInvalidAngles() throws {
        let opener = pair.opener()
        let store = TestStore(opener)
        var ahead: [PairedPeer] = []
        store.ahead = { ahead.append($0) }
        let span = SealedStreamOpener.reservationSpan
        var sealer = pair.sealer(epoch: 4)
        #expect(store.refusal(try SealedPair.seal(&sealer, 0)) == .awaitingStorage)
        #expect(opener.reservationStored(ahead.removeFirst()))
        for s in 0..<span / 2 { #expect(store.refusal(try SealedPair.seal(&sealer, s)) == nil) }
        #expect(store.refusal(try SealedPair.seal(&sealer, span / 2, roll: .nan)) == .invalidAngles)
        #expect(store.refusal(try SealedPair.seal(&sealer, span / 2 + 1)) == nil)
        #expect(
            ahead.count == 1 && ahead[0].nextSequence == span / 2 + 1 + span,
            "asked by the next datagram: \(ahead.map(\.nextSequence))")
    }

    /// Sends each datagram from a socket of its own on 127.0.0.(first + i): a source per datagram.
    static func sendFromMany(_ datagrams: [[UInt8]], to target: SocketAddress, firstHost: Int = 2) throws {
        for (i, d) in datagrams.enumerated() {
            let socket = try UDPSocket(family: AF_INET, blocking: true)
            try socket.bind(
                to: SocketAddress(
                    addressBytes: [127, 0, UInt8((firstHost + i) / 250), UInt8(1 + (firstHost + i) % 250)], port: 0)!)
            _ = try d.withUnsafeBytes { try socket.send($0, to: target) }
        }
    }

    @Test(
        "A paired sender back from a silence at another address is labelled with its new address (one stream throughout)"
    )
    func labelAfterSilence() throws {
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: pair.opener())
        var sealer = pair.sealer()
        var events: [AttitudeReceiver.Event] = []
        try Self.send(try (0..<5).map { try SealedPair.seal(&sealer, UInt64($0)) }, from: 2, to: r.localAddress)
        try Self.drainAll(r, &events)
        // Messages name a paired sender's stream by its name (the key is plain data; the label has it).
        let name = "'\(pair.senderRecord.name)' (127.0.0.2:"
        let startedKey = events.compactMap { if case .streamStarted(let k) = $0 { k } else { nil } }.first
        #expect(
            startedKey.map { r.describe($0) }?.hasPrefix(name) == true, "\(startedKey.map { r.describe($0) } ?? "")")
        var lostLabel: StreamLabel?
        var lostText = ""
        try r.checkSilence(now: MonotonicClock.nanoseconds() + 1_000_000_000) {
            if case .streamLost(let key) = $0 {
                lostLabel = r.label(of: key)
                lostText = r.describe(key)
            }
        }
        #expect(
            lostLabel?.sender.hasPrefix("127.0.0.2:") == true, "the lost stream's label is there to end its outputs")
        #expect(lostText.hasPrefix(name), "\(lostText)")
        try Self.send(try (5..<10).map { try SealedPair.seal(&sealer, UInt64($0)) }, from: 3, to: r.localAddress)
        try Self.drainAll(r, &events)
        let frames = events.compactMap { if case .frame(let f) = $0 { f } else { nil } }
        let started = events.filter { if case .streamStarted = $0 { true } else { false } }.count
        #expect(frames.count == 10 && started == 1, "\(frames.count) frames, \(started) streams")
        #expect(frames.last?.stream.sender.hasPrefix("127.0.0.3:") == true, "\(frames.last?.stream.description ?? "")")
        #expect(frames.first?.stream.peer == pair.senderRecord.name)
    }

    static func drainAll(_ r: AttitudeReceiver, _ events: inout [AttitudeReceiver.Event]) throws {
        while try EventLoop.waitUntilReadable([r.descriptor], timeoutNanoseconds: 50_000_000) {
            try r.drain { events.append($0) }
        }
    }

    static func send(_ datagrams: [[UInt8]], from host: UInt8, to target: SocketAddress) throws {
        let socket = try UDPSocket(family: AF_INET, blocking: true)
        try socket.bind(to: SocketAddress(addressBytes: [127, 0, 0, host], port: 0)!)
        for d in datagrams { _ = try d.withUnsafeBytes { try socket.send($0, to: target) } }
    }

    @Test(
        "A paired sender's stream is one whatever address its datagrams come from: a held-back datagram re-sent from another address is stale, not a stream of its own"
    )
    func lateDatagramFromAnotherAddress() throws {
        let opener = pair.opener()
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: opener)
        var sealer = pair.sealer()
        let all = try (0..<100).map { try SealedPair.seal(&sealer, UInt64($0)) }
        var events: [AttitudeReceiver.Event] = []
        // An on-path attacker holds back 10 and 90...93 and forwards the rest from the sender's address...
        try Self.send(
            all.enumerated().filter { ![10, 90, 91, 92, 93].contains($0.offset) }.map(\.element), from: 2,
            to: r.localAddress)
        try Self.drainAll(r, &events)
        // ...then sends them from addresses of its own: once each (never accepted, so not replays).
        for (i, held) in [10, 90, 91, 92, 93].enumerated() {
            try Self.send([all[held]], from: UInt8(3 + i), to: r.localAddress)
        }
        try Self.drainAll(r, &events)
        let started = events.filter { if case .streamStarted = $0 { true } else { false } }.count
        let dropped = events.filter { if case .streamDropped = $0 { true } else { false } }.count
        let frames = events.compactMap { if case .frame(let f) = $0 { f } else { nil } }
        #expect(started == 1 && dropped == 0, "one stream, none pushed out: \(started) started, \(dropped) dropped")
        #expect(
            frames.count == 95 && frames.allSatisfy { $0.stream.sender.description.hasPrefix("127.0.0.2:") },
            "the late ones are stale, not output from another address: \(frames.count) frames")
        #expect(r.totals.reordered == 5, "\(r.totals)")
    }

    @Test(
        "A paired sender keeps at most 4 streams (stream ids) at once; many source addresses keep the table of sources bounded and the totals exact"
    )
    func streamsPerSenderBounded() throws {
        let opener = pair.opener()
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: opener)
        var sealer = pair.sealer()
        var events: [AttitudeReceiver.Event] = []
        try Self.send(
            try (0..<10).map { try SealedPair.seal(&sealer, UInt64($0), stream: UInt32(100 + $0)) }, from: 2,
            to: r.localAddress)
        try Self.drainAll(r, &events)
        let started = events.filter { if case .streamStarted = $0 { true } else { false } }.count
        let dropped = events.compactMap { if case .streamDropped(let k) = $0 { k } else { nil } }
        let frames = events.filter { if case .frame = $0 { true } else { false } }.count
        #expect(
            frames == 10 && started == 10,
            "every authentic datagram is output once: \(frames) frames, \(started) streams")
        #expect(
            dropped.count == 6 && r.streamsDropped == 6,
            "at most \(AttitudeReceiver.maximumStreamsPerSender) kept: \(dropped.count) dropped")
        #expect(
            dropped.first?.streamID == 100,
            "the least recently heard goes first: \(dropped.first.map { "\($0.streamID)" } ?? "")")
        // 300 more source addresses (the sender moving, or an attacker re-sending): one stream, the
        // per-source table bounded, the totals exact.
        try Self.sendFromMany(
            try (10..<310).map { try SealedPair.seal(&sealer, UInt64($0)) }, to: r.localAddress, firstHost: 20)
        try Self.drainAll(r, &events)
        #expect(r.totals.frames == 310, "totals: \(r.totals)")
        #expect(
            r.counters.count <= AttitudeReceiver.maximumCountedSources
                && r.quality.count <= AttitudeReceiver.maximumCountedSources,
            "sources counted one by one: \(r.counters.count)")
    }

    @Test(
        "Forged datagrams naming a paired sender's id and ever new epochs, from another address, do not spend the real sender's key budget: its new epoch opens at once"
    )
    func forgeriesDoNotStarveTheSender() throws {
        let opener = pair.opener()
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .sealed,
            opener: opener)
        var sealer = pair.sealer(epoch: 5)
        let real = try SealedPair.seal(&sealer, 0)
        let forged: [[UInt8]] = (0..<300).map { i in
            var f = real
            let epoch = UInt32(1000 + i).littleEndian
            withUnsafeBytes(of: epoch) { for k in 0..<4 { f[SealedDatagramLayout.epochOffset + k] = $0[k] } }
            return f
        }
        var events: [AttitudeReceiver.Event] = []
        try Self.send(forged, from: 3, to: r.localAddress)
        try Self.drainAll(r, &events)
        #expect(r.refusals[.rateLimited] > 200, "the forgeries ran out of their budget: \(r.refusals.summary)")
        try Self.send([real], from: 2, to: r.localAddress)
        try Self.drainAll(r, &events)
        let frames = events.filter { if case .frame = $0 { true } else { false } }.count
        #expect(frames == 1, "the real sender's new epoch opened: \(frames) frames; \(r.refusals.summary)")
    }

    @Test(
        "Counts cannot overflow: a sender skipping to the last sequence number, then a new stream skipping again, leaves the receiver running"
    )
    func countersSaturate() throws {
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .datagram)
        var events: [AttitudeReceiver.Event] = []
        let far = UInt64.max - 2000  // each skip is near 2^64: two of them overflow a sum
        try Self.send(
            [
                SealedPair.plain(0, stream: 1), SealedPair.plain(far, stream: 1), SealedPair.plain(0, stream: 2),
                SealedPair.plain(far, stream: 2)
            ], from: 2, to: r.localAddress)
        try Self.drainAll(r, &events)
        #expect(r.totals.frames == 4, "\(r.totals)")
    }

    @Test(
        "Unauthenticated streams (--insecure) are bounded all together: the least recently heard is dropped beyond 64")
    func unauthenticatedStreamsBounded() throws {
        let r = try AttitudeReceiver(
            listeningOn: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false), format: .datagram)
        var events: [AttitudeReceiver.Event] = []
        try Self.sendFromMany((0..<70).map { SealedPair.plain(UInt64($0)) }, to: r.localAddress)
        try Self.drainAll(r, &events)
        #expect(
            r.streamsDropped == 6 && r.totals.frames == 70, "\(r.streamsDropped) dropped, \(r.totals.frames) frames")
    }

    @Test("A sender paired while the receiver runs starts from its stored floor, not from zero")
    func reloadedPeerKeepsItsFloor() throws {
        let opener = SealedStreamOpener(receiverID: pair.receiver.id, peers: [])
        var record = pair.senderRecord
        record.epoch = 3
        record.nextSequence = 100
        opener.replacePeers([record])
        var sealer = pair.sealer(epoch: 3)
        #expect(opener.refusal(try SealedPair.seal(&sealer, 99)) == .replayed)
        #expect(opener.refusal(try SealedPair.seal(&sealer, 100)) == nil)
    }
}
