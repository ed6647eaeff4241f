import Mouse3DCore
import Mouse3DLinux
import Testing

@Suite("The phone page's certificate and QR code, through OpenSSL and libqrencode")
struct PhoneCryptoTests {
    @Test(
        "A self-signed P-256 certificate for the names and addresses given, 825 days, with its SHA-256 fingerprint; a TLS context takes it"
    )
    func certificate() throws {
        let c = try SelfSignedCertificate.make(
            commonName: "mouse3d on desk", names: ["desk.local", "localhost"], addresses: ["127.0.0.1", "::1"])
        #expect(String(decoding: c.certificatePEM, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: c.keyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let fingerprint = try c.fingerprint()
        #expect(fingerprint.count == 32 * 3 - 1 && fingerprint.split(separator: ":").count == 32, "\(fingerprint)")
        let names = try c.subjectAlternativeNames()
        #expect(
            names.contains("DNS:desk.local") && names.contains("IP Address:127.0.0.1") && names.count == 4, "\(names)")
        let left = try c.secondsLeft()
        #expect(left > 824 * 86400 && left <= 825 * 86400, "\(left) s left")
        _ = try TLSServerContext(certificate: c)
        let other = try SelfSignedCertificate.make(commonName: "x", names: ["x"], addresses: [])
        #expect(try other.fingerprint() != fingerprint, "each certificate its own key")
        // A key that is not the certificate's is refused.
        #expect(throws: TLSError.self) {
            try TLSServerContext(
                certificate: SelfSignedCertificate(certificatePEM: c.certificatePEM, keyPEM: other.keyPEM))
        }
    }

    @Test("A URL becomes a QR code with its three finder patterns")
    func qr() throws {
        let code = try #require(QRCodeEncoder.encode("https://desk.local:24933/#0123456789abcdef0123456789abcdef"))
        #expect(code.width >= 25 && (code.width - 17) % 4 == 0, "a QR version's width: \(code.width)")
        // A finder pattern: a 7 × 7 dark ring, light ring, 3 × 3 dark centre, at three corners.
        for (r0, c0) in [(0, 0), (0, code.width - 7), (code.width - 7, 0)] {
            for r in 0..<7 {
                for c in 0..<7 {
                    let ring = r == 0 || r == 6 || c == 0 || c == 6
                    let centre = (2...4).contains(r) && (2...4).contains(c)
                    #expect(code.isDark(r0 + r, c0 + c) == (ring || centre), "finder at \(r0),\(c0): module \(r),\(c)")
                }
            }
        }
    }
}
