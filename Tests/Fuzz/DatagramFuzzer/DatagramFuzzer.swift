import Mouse3DCore
import Mouse3DNetwork

/// Fuzz target for everything that decodes bytes from the network: plain and sealed datagrams,
/// bare frames and pairing messages. Built for libFuzzer by Tests/Fuzz/run.sh
/// (`swift build -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING`); an ordinary build makes a
/// command that replays input files, to reproduce a crash.
enum DatagramFuzzer {
    /// A sender paired with a fixed secret, so that inputs carrying its id reach the AEAD.
    static let sender = PeerIdentity.generate(name: "fuzz")
    /// libFuzzer calls the target from one thread.
    nonisolated(unsafe) static let opener = SealedStreamOpener(receiverID: [1, 2, 3, 4, 5, 6, 7, 8], peers: [
        PairedPeer(role: .sender, name: "fuzz", publicKey: sender.publicKey, secret: [UInt8](repeating: 9, count: 32), address: nil, epoch: 0, pairedAt: "fuzz"),
    ])

    static func run(_ bytes: UnsafeRawBufferPointer) {
        _ = AttitudeDatagram.decode(bytes)
        _ = AttitudeFrame.decode(bytes)
        _ = opener.open(bytes)
        // The same bytes with the known sender's id and the sealed kind written in, to go deeper.
        if bytes.count >= SealedDatagramLayout.headerBytes {
            var patched = Array(bytes)
            patched[0] = AttitudeDatagram.magic.0
            patched[1] = AttitudeDatagram.magic.1
            patched[2] = AttitudeDatagram.version
            patched[3] = SealedDatagramLayout.kind
            for (i, b) in sender.id.enumerated() { patched[SealedDatagramLayout.senderIDOffset + i] = b }
            _ = patched.withUnsafeBytes { opener.open($0) }
        }
        let array = Array(bytes)
        _ = PairingMessage.decode(array)
        _ = try? KeyValueText.parse(String(decoding: array, as: UTF8.self), file: "fuzz")
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    DatagramFuzzer.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's entry for programs with their own main.
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
import Mouse3DLinux

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
