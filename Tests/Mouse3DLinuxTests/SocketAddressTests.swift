import Glibc
import Mouse3DLinux
import Testing

@Suite("Socket addresses")
struct SocketAddressTests {
    @Test(
        "Forms of HOST:PORT resolve",
        arguments: [
            ("127.0.0.1:5000", AF_INET, UInt16(5000), "127.0.0.1:5000"),
            ("[::1]:6000", AF_INET6, 6000, "[::1]:6000"),
            ("[::1]", AF_INET6, 24930, "[::1]:24930"),
            ("127.0.0.1", AF_INET, 24930, "127.0.0.1:24930"),
            ("::1", AF_INET6, 24930, "[::1]:24930"),
            ("localhost:7", AF_INET, 7, "127.0.0.1:7")
        ])
    func resolve(text: String, family: Int32, port: UInt16, description: String) throws {
        let address = try SocketAddress.resolve(text, defaultPort: 24930, passive: false)
        #expect(address.family == family)
        #expect(address.port == port)
        #expect(address.description == description)
        #expect(address.isLoopback)
    }

    @Test("A bare port is loopback for a client and the wildcard for a server")
    func barePort() throws {
        #expect(try SocketAddress.resolve(":9000", defaultPort: 1, passive: false).isLoopback)
        #expect(try SocketAddress.resolve("9000", defaultPort: 1, passive: true).isWildcard)
        #expect(try SocketAddress.resolve("0.0.0.0:9000", defaultPort: 1, passive: true).isWildcard)
    }

    @Test(
        "Bad addresses say what is wrong",
        arguments: [
            ("127.0.0.1:99999", "not a port number"), ("127.0.0.1:http", "not a port number"),
            ("[::1:5000", "needs its ']'"), ("[::1]x", "expected ':PORT'"),
            ("no-such-host.invalid:5000", "cannot resolve host")
        ])
    func bad(text: String, problem: String) {
        #expect { try SocketAddress.resolve(text, defaultPort: 1, passive: false) } throws: { error in
            "\(error)".contains(problem) && "\(error)".contains(text)
        }
    }

    @Test("Equal addresses hash equally; different ports differ")
    func hashing() throws {
        let a = try SocketAddress.resolve("127.0.0.1:5000", defaultPort: 0, passive: false)
        let b = try SocketAddress.resolve("127.0.0.1:5000", defaultPort: 0, passive: false)
        let c = try SocketAddress.resolve("127.0.0.1:5001", defaultPort: 0, passive: false)
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != c)
        #expect(Set([a, b, c]).count == 2)
    }

    @Test("Equality tells every byte of the address and port apart, in either family")
    func equalityByField() throws {
        func address(_ text: String) throws -> SocketAddress {
            try SocketAddress.resolve(text, defaultPort: 0, passive: false)
        }
        let texts = [
            "127.0.0.1:5000", "127.0.0.2:5000", "128.0.0.1:5000", "127.0.0.1:5256", "[::1]:5000", "[::2]:5000",
            "[2001:db8::1]:5000", "[2001:db8::1]:5001", "[2001:db9::1]:5000", "[::ffff:127.0.0.1]:5000"
        ]
        let addresses = try texts.map(address)
        for (i, a) in addresses.enumerated() {
            for (j, b) in addresses.enumerated() {
                #expect((a == b) == (i == j), "\(texts[i]) against \(texts[j])")
            }
            #expect(a == (try address(texts[i])), "\(texts[i]) made twice")
        }
    }
}

@Suite("HOST:PORT text")
struct HostPortTextTests {
    @Test(
        "Writing and reading back HOST:PORT, IPv6 literals in brackets",
        arguments: [
            ("desk", "desk:24930"), ("192.0.2.7", "192.0.2.7:24930"), ("::1", "[::1]:24930"), ("[::1]", "[::1]:24930")
        ])
    func roundTrip(host: String, text: String) throws {
        #expect(SocketAddress.text(host: host, port: 24930) == text)
        #expect(SocketAddress.host(of: text) == host.filter { $0 != "[" && $0 != "]" })
        #expect(SocketAddress.host(of: host) == host.filter { $0 != "[" && $0 != "]" })
    }
}
