import Mouse3DCore
import Mouse3DNetwork
import Testing

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
        guard var reply = responder.handle(initiator.hello, from: "s", pairedAt: "t").answer else { return (nil, .ignore) }
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
        #expect(senderRecord.secret == receiverRecord.secret)
        #expect(senderRecord.secret.count == 32 && Set(senderRecord.secret).count > 8)
        #expect(senderRecord.publicKey == sender.publicKey && senderRecord.name == "deck" && senderRecord.role == .sender)
        #expect(receiverRecord.publicKey == receiver.publicKey && receiverRecord.name == "desk" && receiverRecord.address == ":24930")
        #expect(receiverRecord.fingerprint == receiver.fingerprint)
    }

    @Test("Two pairings with the same code give different secrets (fresh scalars and session ids)")
    func freshSecrets() throws {
        let code = try #require(PairingCode(parsing: "1234-5678"))
        var secrets: [[UInt8]] = []
        for _ in 0..<2 {
            if case .paired(let p)? = exchange(receiverCode: code, senderCode: code).responder { secrets.append(p.secret) }
        }
        #expect(secrets.count == 2 && secrets[0] != secrets[1])
    }

    @Test("A wrong code fails on both sides and yields no secret")
    func wrongCode() throws {
        let (outcome, step) = exchange(receiverCode: try #require(PairingCode(parsing: "11112222")), senderCode: try #require(PairingCode(parsing: "11112223")))
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

    @Test("A reply altered on the way (element, key, port, ciphers or proof) is refused by the sender", arguments: [20, 52, 84, 86, 87, 118])
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
        for cut in [0, 4, 19, 20, 84, hello.count - 1] { #expect(PairingMessage.decode(Array(hello.prefix(cut))) == nil) }
        #expect(PairingMessage.decode(hello + [0]) == nil)
        var badLength = hello
        badLength[84] = 200
        #expect(PairingMessage.decode(badLength) == nil)
    }
}
