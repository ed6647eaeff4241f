import Glibc
import Testing

@testable import Mouse3DLinux

@Suite("TLS over a connection whose peer is gone")
struct TLSBrokenPipeTests {
    /// OpenSSL writes with write(2), which raises SIGPIPE (the default action ends the process) on a
    /// connection the peer has closed. A phone-page client that sends a bad record and leaves at once
    /// makes the server answer with an alert into a closed socket: this must fail the connection, not
    /// end the process.
    @Test("An alert written to a peer that has gone fails the handshake; the process lives (no SIGPIPE death)")
    func alertIntoClosedPeer() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0)
        let certificate = try SelfSignedCertificate.make(commonName: "t", names: ["localhost"], addresses: [])
        let tls = try TLSConnection(
            stream: TCPStream(descriptor: .init(rawValue: fds[0])), context: TLSServerContext(certificate: certificate))
        // A handshake record whose body is garbage: the server answers with a decode_error alert.
        let record: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x08, 0x01, 0x00, 0x00, 0x04, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(record.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == record.count)
        close(fds[1])
        guard case .failed = tls.handshake() else {
            Issue.record("a garbage handshake from a closed peer did not fail")
            return
        }
        // Still here: SIGPIPE was neither delivered nor left pending.
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0, "a SIGPIPE left pending")
        // And the thread's signal mask is as it was.
        var mask = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &mask)
        #expect(sigismember(&mask, SIGPIPE) == 0, "SIGPIPE left blocked")
    }
}
