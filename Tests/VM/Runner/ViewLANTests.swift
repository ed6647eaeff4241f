import CLinux
import Glibc
import Mouse3DCore
import Mouse3DLinux

/// The live view on every address, opened from another machine at this one's LAN address: `run
/// --view 0.0.0.0:8099` in namespace `r` (10.9.0.2), a client in namespace `s` (10.9.0.1) sending
/// what a browser sends for http://10.9.0.2:8099/?token=T (Host 10.9.0.2:8099; the stream's Origin
/// http://10.9.0.2:8099). It gets the page and the stream; another Host, or no token, does not.
extension NetworkTests {
    static func viewAtLANAddress() throws {
        tearDown()
        try setUp()
        defer { tearDown() }
        let log = "/tmp/view-lan-motion.csv"
        try run([mouse3d, "simulate", "--motion", "hand", "--seconds", "10", "--rate", "100", "--output", log])
        let child = try ChildProcess(
            executable: ip,
            arguments: [
                "netns", "exec", "r", mouse3d, "run", "--source", "replay:\(log)", "--loop", "--view", "0.0.0.0:8099"
            ],
            standardOutputPath: "/dev/null")
        defer {
            try? child.send(signal: SIGTERM)
            _ = try? child.wait()
        }
        var token = ""
        while token.isEmpty, let line = try child.readErrorLine() {
            if let r = line.firstRange(of: "?token=") { token = String(line[r.upperBound...].prefix { $0.isHexDigit }) }
        }
        try expect(token.count == 32, "run printed no view URL with a token")
        let own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)
        let inS = open("/var/run/netns/s", O_RDONLY | O_CLOEXEC)
        try expect(own >= 0 && inS >= 0, "namespace files: \(own), \(inS)")
        defer {
            close(own)
            close(inS)
        }
        /// Sends `request` to 10.9.0.2:8099 from namespace `s`; what came back within a second.
        func exchange(_ request: String) throws -> String {
            try expect(setns(inS, Int32(CLONE_NEWNET)) == 0, "setns into s: errno \(errno)")
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            _ = setns(own, Int32(CLONE_NEWNET))
            try expect(fd >= 0, "socket: errno \(errno)")
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(8099).bigEndian)
            address.sin_addr.s_addr = inet_addr("10.9.0.2")
            var connected = false
            for _ in 0..<50 where !connected {
                connected =
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    } == 0
                if !connected { usleep(100_000) }
            }
            try expect(connected, "cannot connect to 10.9.0.2:8099 from s")
            _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            let end = MonotonicClock.nanoseconds() + 1_000_000_000
            while MonotonicClock.nanoseconds() < end {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 50) > 0 else { continue }
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                received += buffer[0..<n]
            }
            return String(decoding: received, as: UTF8.self)
        }
        let page = try exchange("GET /?token=\(token) HTTP/1.1\r\nHost: 10.9.0.2:8099\r\nConnection: close\r\n\r\n")
        try expect(
            page.hasPrefix("HTTP/1.1 200") && page.contains("mouse3dView"),
            "the page at the LAN address: \(page.prefix(120))")
        let stream = try exchange(
            "GET /stream?token=\(token) HTTP/1.1\r\nHost: 10.9.0.2:8099\r\nOrigin: http://10.9.0.2:8099\r\nConnection: Upgrade\r\n"
                + "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
        try expect(
            stream.hasPrefix("HTTP/1.1 101") && stream.contains("\"streams\":[{"),
            "the live stream at the LAN address: \(stream.prefix(200))")
        let other = try exchange("GET /?token=\(token) HTTP/1.1\r\nHost: 10.9.0.3:8099\r\nConnection: close\r\n\r\n")
        try expect(other.hasPrefix("HTTP/1.1 421"), "another address as Host: \(other.prefix(80))")
        let tokenless = try exchange("GET / HTTP/1.1\r\nHost: 10.9.0.2:8099\r\nConnection: close\r\n\r\n")
        try expect(tokenless.hasPrefix("HTTP/1.1 403"), "no token: \(tokenless.prefix(80))")
        say(
            "VMTEST-INFO view on 0.0.0.0: page and stream served at 10.9.0.2 from another namespace; another Host 421, no token 403"
        )
    }
}
