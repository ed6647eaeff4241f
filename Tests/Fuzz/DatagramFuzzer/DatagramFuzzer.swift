import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

/// Fuzz targets for everything that decodes bytes from the network, chosen by the environment
/// variable MOUSE3D_FUZZ_TARGET (default `datagrams`):
/// - `datagrams`: plain and sealed datagrams, bare frames, pairing messages, key files, DSU requests, as received;
/// - `sealed`: inputs sealed first with a test key, so every input carries a valid tag and the
///   mutations land in what the opener decodes after the AEAD (plaintext, sequence, epoch, stream);
/// - `pairing`: both sides of a pairing, fed a genuine hello first and then the input;
/// - `probes`: link probe requests and replies, raw and sealed with a test key;
/// - `view`: what the live view reads from a TCP connection: HTTP request heads and WebSocket frames.
/// - `phone`: what the phone page sends after its token: messages, their readings mapped to this
///   machine's clock (times only increase, every reading a sample), buttons and platform.
/// Built for libFuzzer by Tests/Fuzz/run.sh (`swift build -Xswiftc -sanitize=fuzzer -Xswiftc
/// -DFUZZING`); an ordinary build makes a command that replays input files, to reproduce a crash.
enum DatagramFuzzer {
    /// A sender paired with a fixed secret, so that inputs carrying its id reach the AEAD.
    static let sender = PeerIdentity.generate(name: "fuzz")
    static let receiverID: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
    static let secret = [UInt8](repeating: 9, count: 32)
    /// libFuzzer calls the target from one thread.
    nonisolated(unsafe) static let opener = SealedStreamOpener(
        receiverID: receiverID,
        peers: [
            PairedPeer(
                role: .sender, name: "fuzz", publicKey: sender.publicKey, secret: secret, address: nil, epoch: 0,
                pairedAt: "fuzz")
        ])
    static let target = FileSystem.environment("MOUSE3D_FUZZ_TARGET") ?? "datagrams"

    static func run(_ bytes: UnsafeRawBufferPointer) {
        switch target {
        case "sealed": sealed(bytes)
        case "pairing": pairing(bytes)
        case "probes": probes(bytes)
        case "view": view(bytes)
        case "phone": phone(bytes)
        default: datagrams(bytes)
        }
    }

    static func datagrams(_ bytes: UnsafeRawBufferPointer) {
        _ = AttitudeDatagram.decode(bytes)
        _ = AttitudeFrame.decode(bytes)
        _ = opener.openStoringNothing(bytes)
        // The same bytes with the known sender's id and the sealed kind written in, to go deeper.
        if bytes.count >= SealedDatagramLayout.headerBytes {
            var patched = Array(bytes)
            patched[0] = AttitudeDatagram.magic.0
            patched[1] = AttitudeDatagram.magic.1
            patched[2] = AttitudeDatagram.version
            patched[3] = SealedDatagramLayout.kind
            for (i, b) in sender.id.enumerated() { patched[SealedDatagramLayout.senderIDOffset + i] = b }
            _ = patched.withUnsafeBytes { opener.openStoringNothing($0) }
        }
        let array = Array(bytes)
        _ = PairingMessage.decode(array)
        _ = DSUProtocol.decodeRequest(array)
        _ = try? KeyValueText.parse(String(decoding: array, as: UTF8.self), file: "fuzz")
    }

    /// The phone's messages, split at each 0xFF byte into several, all arriving at the same time.
    static func phone(_ bytes: UnsafeRawBufferPointer) {
        var mapper = PhoneSampleMapper()
        var last = Int64.min
        for part in bytes.split(separator: 0xFF, omittingEmptySubsequences: false) {
            let message = Array(part)
            guard case .success(let decoded) = message.withUnsafeBytes({ PhoneMessage.decode($0) }) else { continue }
            precondition(message.count <= PhoneMessage.maximumBytes, "a decoded message larger than allowed")
            switch decoded {
            case .readings(let readings):
                let samples = mapper.samples(readings, arrival: 5_000_000_000)
                precondition(samples.count == readings.count, "every reading a sample")
                for s in samples {
                    precondition(s.timestampNanoseconds > last, "times only increase")
                    last = s.timestampNanoseconds
                }
            case .platform(let p): mapper.platform = p
            case .screen(let angle):
                precondition([0, 90, 180, 270].contains(angle), "a screen angle off the right angles")
                mapper.screenAngle = angle
            case .buttons: break
            }
        }
    }

    /// The input as an HTTP request head, then (after what the head took, or from the start) as a
    /// run of client WebSocket frames, the way the view consumes a connection's bytes.
    static func view(_ bytes: UnsafeRawBufferPointer) {
        var rest = Array(bytes)
        if case .complete(let head, let length) = HTTPRequestHead.parse(rest) {
            precondition(
                length <= HTTPRequestHead.maximumBytes && length <= rest.count,
                "a head longer than the limit or the input")
            _ = head.field("host")
            _ = head.field("connection", contains: "upgrade")
            rest.removeFirst(length)
        }
        while !rest.isEmpty {
            guard case .frame(_, let payload, _, let length) = WebSocketFrame.decodeClientFrame(rest) else { break }
            precondition(
                length > 0 && length <= rest.count && payload.count <= WebSocketFrame.maximumClientPayload,
                "frame bounds")
            rest.removeFirst(length)
        }
    }

    /// The input as a 40-byte plain datagram (its header fixed up so it can be sealed), sealed under
    /// an epoch taken from the input, then opened: the opener's checks after the tag, the replay
    /// window, reservations and the plaintext decoder see arbitrary authentic content.
    static func sealed(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 4 else { return }
        var plain = [UInt8](repeating: 0, count: AttitudeDatagram.byteCount)
        for i in 0..<min(bytes.count - 4, plain.count) { plain[i] = bytes[4 + i] }
        plain[0] = AttitudeDatagram.magic.0
        plain[1] = AttitudeDatagram.magic.1
        plain[2] = AttitudeDatagram.version
        plain[3] = AttitudeDatagram.plainKind
        let epoch = bytes.loadUnaligned(as: UInt32.self) % 64  // a few epochs, so old ones recur
        var sealer = DatagramSealer(
            secret: secret, senderID: sender.id, receiverID: receiverID, epoch: epoch,
            algorithm: FrameCipher.aes256GCMAvailable && epoch % 2 == 0 ? .aes256GCM : .chacha20Poly1305)
        var out: [UInt8] = []
        sealer.seal(plain, into: &out)
        if let opened = out.withUnsafeBytes({ opener.openStoringNothing($0) }).verified {
            precondition(opened.datagram.frame.isValid, "an accepted frame must be valid")
        }
    }

    /// A responder that got a genuine hello, then the input; an initiator given the input as reply.
    static func pairing(_ bytes: UnsafeRawBufferPointer) {
        let code = PairingCode(parsing: "12345678")!
        let responder = PairingResponder(identity: sender, code: code, streamPort: 1)
        let initiator = PairingInitiator(identity: sender, code: code)
        let input = Array(bytes)
        _ = responder.handle(initiator.hello, from: "a", pairedAt: "t")
        _ = responder.handle(input, from: "a", pairedAt: "t")
        _ = responder.handle(input, from: "b", pairedAt: "t")
        _ = initiator.handle(input, pairedAt: "t")
        let fresh = PairingResponder(identity: sender, code: code, streamPort: 1)
        _ = fresh.handle(input, from: "a", pairedAt: "t")
    }

    /// Probe requests and replies: as received, and sealed with the pairing's probe key.
    static func probes(_ bytes: UnsafeRawBufferPointer) {
        _ = opener.answerProbe(bytes)
        _ = LinkProbe.fields(of: bytes)
        let key = LinkProbeKey(secret: secret, senderID: sender.id, receiverID: receiverID)
        _ = key.open(bytes)
        guard bytes.count >= 32 else { return }
        let probe = LinkProbe(
            isReply: bytes[0] & 1 == 1, id: bytes[0] & 2 == 0 ? sender.id : Array(bytes[1..<9]),
            challenge: Array(bytes[9..<25]),
            sentNanoseconds: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        let sealed = key.seal(probe)
        _ = sealed.withUnsafeBytes { opener.answerProbe($0) }
        _ = sealed.withUnsafeBytes { key.open($0) }
    }
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        DatagramFuzzer.run(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }

    /// libFuzzer's entry for programs with their own main.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // (the C name libFuzzer exports)
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    /// SwiftPM links an executable's entry as `<target>_main`; hand it to libFuzzer's driver.
    @_cdecl("DatagramFuzzer_main")
    public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, fuzzOneInput)
    }
#else
    /// Without libFuzzer: replays each file named on the command line through the target.
    @main
    enum DatagramFuzzerReplay {
        static func main() throws {
            for path in CommandLine.arguments.dropFirst() {
                let bytes = try FileContents.read(path: path)
                bytes.withUnsafeBytes { DatagramFuzzer.run($0) }
                print("\(path): \(bytes.count) bytes, no crash")
            }
        }
    }
#endif
