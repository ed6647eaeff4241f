import Glibc
import Mouse3DCore
import Mouse3DLinux
import Testing

@testable import Mouse3DNetwork

@Suite("Pairing exchange (CPace) in memory")
struct PairingTests {
    let receiver = PeerIdentity.generate(name: "desk")
    let sender = PeerIdentity.generate(name: "deck")

    /// Runs a whole exchange; returns both sides' results.
    func exchange(receiverCode: PairingCode, senderCode: PairingCode, tamper: (([UInt8]) -> [UInt8])? = nil)
        -> (responder: PairingResponder.Outcome?, initiator: PairingInitiator.Step)
    {
        let responder = PairingResponder(identity: receiver, code: receiverCode, streamPort: 24930)
        let initiator = PairingInitiator(identity: sender, code: senderCode)
        guard var reply = responder.handle(initiator.hello, from: "s", pairedAt: "t").answer else {
            return (nil, .ignore)
        }
        if let tamper { reply = tamper(reply) }
        let step = initiator.handle(reply, pairedAt: "t")
        guard case .send(let confirm) = step else {
            // The sender still sends its confirmation so the receiver's user hears of the failure.
            let outcome = responder.handle(initiator.pending, from: "s", pairedAt: "t").outcome
            return (outcome, step)
        }
        let (done, outcome) = responder.handle(confirm, from: "s", pairedAt: "t")
        return (outcome, initiator.handle(done ?? [], pairedAt: "t"))
    }

    @Test("With the same code both sides store the same secret and each other's keys")
    func sameCode() throws {
        let code = PairingCode.random()
        let (outcome, step) = exchange(receiverCode: code, senderCode: code)
        guard case .paired(let senderRecord)? = outcome, case .paired(let receiverRecord) = step else {
            Issue.record("pairing failed: \(String(describing: outcome)) \(step)")
            return
        }
        // Compared outside #expect, which would print both secrets if they differed.
        let same = senderRecord.secret == receiverRecord.secret
        let wellFormed = senderRecord.secret.count == 32 && Set(senderRecord.secret).count > 8
        #expect(same, "the two sides derived different secrets")
        #expect(wellFormed, "the secret is not 32 varied bytes")
        #expect(
            senderRecord.publicKey == sender.publicKey && senderRecord.name == "deck" && senderRecord.role == .sender)
        #expect(
            receiverRecord.publicKey == receiver.publicKey && receiverRecord.name == "desk"
                && receiverRecord.address == ":24930")
        #expect(receiverRecord.fingerprint == receiver.fingerprint)
    }

    @Test("Two pairings with the same code give different secrets (fresh scalars and session ids)")
    func freshSecrets() throws {
        let code = try #require(PairingCode(parsing: "1234-5678"))
        var secrets: [[UInt8]] = []
        for _ in 0..<2 {
            if case .paired(let p)? = exchange(receiverCode: code, senderCode: code).responder {
                secrets.append(p.secret)
            }
        }
        let distinct = secrets.count == 2 && secrets[0] != secrets[1]
        #expect(distinct, "two pairings derived the same secret")
    }

    @Test("A wrong code fails on both sides and yields no secret")
    func wrongCode() throws {
        let (outcome, step) = exchange(
            receiverCode: try #require(PairingCode(parsing: "11112222")),
            senderCode: try #require(PairingCode(parsing: "11112223")))
        guard case .wrongCode(let name, _)? = outcome else {
            Issue.record("receiver outcome: \(String(describing: outcome))")
            return
        }
        #expect(name == "deck")
        guard case .failed(let reason) = step else {
            Issue.record("sender step: \(step)")
            return
        }
        #expect(reason.contains("wrong code"))
    }

    @Test(
        "A reply altered on the way (element, key, port, ciphers or proof) is refused by the sender",
        arguments: [20, 52, 84, 86, 87, 118])
    func tamperedReply(offset: Int) throws {
        let code = PairingCode.random()
        let (_, step) = exchange(receiverCode: code, senderCode: code) { reply in
            var r = reply
            r[offset] ^= 0x01
            return r
        }
        if case .paired = step { Issue.record("a tampered reply (byte \(offset)) was accepted") }
    }

    @Test("A second sender during a pairing is told the receiver is busy, and cannot take over")
    func busy() throws {
        let code = PairingCode.random()
        let responder = PairingResponder(identity: receiver, code: code, streamPort: 1)
        let first = PairingInitiator(identity: sender, code: code)
        let intruder = PairingInitiator(identity: PeerIdentity.generate(name: "x"), code: code)
        #expect(responder.handle(first.hello, from: "a", pairedAt: "t").answer != nil)
        let answer = try #require(responder.handle(intruder.hello, from: "b", pairedAt: "t").answer)
        guard case .failed(let reason) = intruder.handle(answer, pairedAt: "t") else {
            Issue.record("intruder not told busy")
            return
        }
        #expect(reason.contains("another sender"))
        #expect(responder.refusals[.pairingBusy] == 1 && responder.refusals.total == 1)
    }

    @Test("The responder counts what it refuses by typed reason: malformed messages and invalid shares")
    func responderRefusals() {
        let code = PairingCode.random()
        let responder = PairingResponder(identity: receiver, code: code, streamPort: 1)
        let hello = PairingInitiator(identity: sender, code: code).hello
        #expect(responder.handle(Array(hello.prefix(19)), from: "a", pairedAt: "t").answer == nil)
        var badShare = hello
        for i in 20..<52 { badShare[i] = 0xff }
        #expect(responder.handle(badShare, from: "a", pairedAt: "t").answer == nil)
        #expect(responder.refusals[.malformedPairingMessage] == 2, "\(responder.refusals.summary)")
        #expect(responder.handle(hello, from: "a", pairedAt: "t").answer != nil, "a good hello is still answered")
    }

    @Test("Malformed pairing datagrams decode to nothing")
    func malformed() {
        let hello = PairingInitiator(identity: sender, code: PairingCode.random()).hello
        #expect(PairingMessage.decode(hello) != nil)
        for cut in [0, 4, 19, 20, 84, hello.count - 1] {
            #expect(PairingMessage.decode(Array(hello.prefix(cut))) == nil)
        }
        #expect(PairingMessage.decode(hello + [0]) == nil)
        var badLength = hello
        badLength[84] = 200
        #expect(PairingMessage.decode(badLength) == nil)
    }

    @Test(
        "A peer name with a newline, quotes or control characters round-trips through its key and state files and adds no line"
    )
    func hostileNames() throws {
        let name = "deck\nepoch = 0\nsecret = \"00\"\r\u{7f}\"\\"
        var peer = PairedPeer(
            role: .sender, name: name, publicKey: sender.publicKey, secret: [UInt8](repeating: 5, count: 32),
            address: nil, epoch: 7, pairedAt: "t")
        peer.nextSequence = 99
        var read = try PairedPeer(role: .sender, fileText: peer.fileText, path: "key")
        try read.applyState(peer.stateText, path: "state")
        #expect(read.epoch == 7 && read.nextSequence == 99, "the name did not change the state")
        let expected = String(
            String.UnicodeScalarView(name.unicodeScalars.map { $0 == "\r" || $0 == "\u{7f}" ? "?" : $0 }))
        #expect(read.name == TerminalText.escaped(expected), "loaded names are escaped for the terminal: \(read.name)")
        #expect(!read.name.contains("\n"))
        let keyLines = peer.fileText.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            $0.split(separator: " ").first ?? ""
        }
        #expect(Set(keyLines).count == keyLines.count, "no key appears twice: \(keyLines)")
        #expect(peer.stateText.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 3)
    }

    @Test("No answer before the code is proved is larger than what it answers: a hello is padded beyond any reply")
    func noAmplification() throws {
        let code = PairingCode.random()
        let responder = PairingResponder(identity: receiver, code: code, streamPort: 24930)
        let initiator = PairingInitiator(identity: sender, code: code)
        #expect(initiator.hello.count == PairingMessage.helloBytes)
        let reply = try #require(responder.handle(initiator.hello, from: "a", pairedAt: "t").answer)
        #expect(
            reply.count <= initiator.hello.count, "reply \(reply.count) bytes for a \(initiator.hello.count)-byte hello"
        )
        let intruder = PairingInitiator(
            identity: PeerIdentity.generate(name: String(repeating: "x", count: 64)), code: code)
        let busy = try #require(responder.handle(intruder.hello, from: "b", pairedAt: "t").answer)
        #expect(busy.count <= intruder.hello.count)
        guard case .send(let confirm) = initiator.handle(reply, pairedAt: "t") else {
            Issue.record("no confirmation")
            return
        }
        let verdict = try #require(responder.handle(confirm, from: "a", pairedAt: "t").answer)
        #expect(verdict.count <= confirm.count)
    }

    @Test("A hello that is never confirmed ends the attempt within the exchange limit, naming who; nothing is stored")
    func silentHello() throws {
        let code = PairingCode.random()
        let socket = try UDPSocket(family: AF_INET)
        try socket.bind(to: SocketAddress.resolve("127.0.0.1:0", defaultPort: 0, passive: false))
        let target = try socket.localAddress()
        let silent = try UDPSocket(family: AF_INET)
        let hello = PairingInitiator(identity: sender, code: code).hello
        _ = try hello.withUnsafeBytes { try silent.send($0, to: target) }
        let loop = try EventLoop(signals: [])
        let start = MonotonicClock.nanoseconds()
        do {
            _ = try PairingService.respond(
                on: socket, responder: PairingResponder(identity: receiver, code: code, streamPort: 1),
                timeoutNanoseconds: 10_000_000_000,
                exchangeTimeoutNanoseconds: 300_000_000, loop: loop, now: { "t" })
            Issue.record("paired with a silent sender")
        } catch let failure as PairingService.Failure {
            #expect(failure.description.contains("said hello and did not finish pairing"), "\(failure)")
            #expect(failure.description.contains("127.0.0.1:"), "names the source: \(failure)")
        }
        let took = MonotonicClock.nanoseconds() - start
        #expect(took >= 300_000_000 && took < 5_000_000_000, "\(took) ns")
    }

    @Test("CPace over ristretto255/SHA-512 matches draft-irtf-cfrg-cpace-21's test vectors byte for byte")
    func cpaceVectors() throws {
        func hex(_ text: String) -> [UInt8] { Hexadecimal.decode(text)! }
        let prs = Array("Password".utf8)
        let ci = hex("0b415f696e69746961746f720b425f726573706f6e646572")
        let sid = hex("7e4b4791d6a8ef019b936c79fb7f2c57")
        let generatorString = CPace.generatorString(prs: prs, channel: ci, sid: sid)
        #expect(
            Hexadecimal.encode(generatorString) == "11435061636552697374726574746f3235350850617373776f726464"
                + String(repeating: "00", count: 100)
                + "180b415f696e69746961746f720b425f726573706f6e646572107e4b4791d6a8ef019b936c79fb7f2c57")
        let g = CPace.generator(prs: prs, channel: ci, sid: sid)
        #expect(Hexadecimal.encode(g) == "222b6b195fe84b1652badb6f6a3ae3d24341e7306967f0b8115b40d5698c7e56")
        let a = CPace(scalar: hex("da3d23700a9e5699258aef94dc060dfda5ebb61f02a5ea77fad53f4ff0976d08"), generator: g)
        let b = CPace(scalar: hex("d2316b454718c35362d83d69df6320f38578ed5984651435e2949762d900b80d"), generator: g)
        #expect(Hexadecimal.encode(a.share) == "d6bac480f2c386c394efc7c47adb9925dcd2630b64f240c50f8d0eec482b9157")
        #expect(Hexadecimal.encode(b.share) == "3ea7e0b19560d7c0b0f5734f63b955286dfa8232b5ebe63324e2d9e7433f7258")
        let isk =
            "b69effbf61b51d56401c0f65601abe428de8206feaaf0e32198896dcae7b35cd2b38950a39dfd5d4a79164614c2984f7daa460b588c1e80c3fa2068af7900447"
        let ada = Array("ADa".utf8)
        let adb = Array("ADb".utf8)
        let initiator = try #require(
            a.intermediateKey(sid: sid, peerShare: b.share, ownData: ada, peerData: adb, isInitiator: true))
        let responder = try #require(
            b.intermediateKey(sid: sid, peerShare: a.share, ownData: adb, peerData: ada, isInitiator: false))
        #expect(Hexadecimal.encode(initiator) == isk)
        #expect(Hexadecimal.encode(responder) == isk)
        // The draft's invalid elements: one that does not decode, and the identity, are refused.
        for invalid in [
            "2b3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c", String(repeating: "00", count: 32)
        ] {
            #expect(
                a.intermediateKey(sid: sid, peerShare: hex(invalid), ownData: ada, peerData: adb, isInitiator: true)
                    == nil)
        }
    }
}
