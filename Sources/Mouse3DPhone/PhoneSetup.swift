import Mouse3DCore
import Mouse3DLinux

/// What `--source phone` needs before it serves: the certificate (made on first use, kept), the
/// token (fresh each run, or the remembered phone's), and the lines that tell the user where to go.
public enum PhoneSetup {
    /// Where the certificate and its key are kept: `$XDG_DATA_HOME/mouse3d/phone` (else
    /// `~/.local/share/mouse3d/phone`), the key mode 0600.
    public static var directory: String {
        if let xdg = FileSystem.environment("XDG_DATA_HOME"), xdg.hasPrefix("/") { return xdg + "/mouse3d/phone" }
        return FileSystem.inHome("/.local/share/mouse3d/phone")
    }

    /// The remembered phones' secrets (`--phone-remember`), one a line, in the configuration folder
    /// beside the keys.
    public static func rememberedPhonesPath(in configurationDirectory: String) -> String {
        configurationDirectory + "/phone.secrets"
    }

    /// Where releases before the phone's secrets kept the remembered phone's token (still removed by
    /// `pair --revoke phone`; no longer read: that token never retired).
    static func oldTokenPath(in configurationDirectory: String) -> String { configurationDirectory + "/phone.token" }

    /// The stored certificate, or a new one: also when the stored one has less than 30 days left, or
    /// does not cover one of `addresses` (the machine's addresses now, which a phone may open the
    /// page at: a browser checks the address against the certificate too).
    public static func certificate(in directory: String = directory, addresses: [String]) throws -> (
        certificate: SelfSignedCertificate, created: Bool
    ) {
        let certPath = directory + "/certificate.pem"
        let keyPath = directory + "/key.pem"
        try SecretFile.checkFolder(directory)
        if let key = try SecretFile.read(path: keyPath), FileSystem.fileExists(certPath) {
            let stored = SelfSignedCertificate(certificatePEM: try FileContents.read(path: certPath), keyPEM: key)
            if let left = try? stored.secondsLeft(), left > 30 * 86400,
                addresses.allSatisfy({ (try? stored.covers(address: $0)) == true }),
                (try? TLSServerContext(certificate: stored)) != nil
            {
                return (stored, false)
            }
        }
        let host = FileSystem.hostName.lowercased()
        var covered = ["127.0.0.1", "::1"]
        for a in addresses where !covered.contains(a) { covered.append(a) }
        let made = try SelfSignedCertificate.make(
            commonName: "mouse3d on \(host)", names: ["\(host).local", host, "localhost"], addresses: covered)
        try SecretFile.makeDirectory(directory)
        try SecretFile.write(path: keyPath, bytes: made.keyPEM)
        try SecretFile.write(path: certPath, bytes: made.certificatePEM)
        return (made, true)
    }

    /// Who may connect this run: a fresh URL token, and with `remember` the phones remembered (their
    /// secrets read from the configuration folder, checked as key files are).
    public static func credentials(remember: Bool, configurationDirectory: String) throws -> PhoneCredentials {
        let token = PhoneCredentials.makeURLToken()
        guard remember else { return PhoneCredentials(urlToken: token, remembers: false) }
        try SecretFile.checkFolder(configurationDirectory)
        let bytes = try SecretFile.read(path: rememberedPhonesPath(in: configurationDirectory)) ?? []
        let secrets = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace)
            .filter { WebAccessPolicy.isWellFormedToken($0) }.map(String.init)
        return PhoneCredentials(urlToken: token, remembers: true, remembered: secrets)
    }

    /// Stores the remembered phones' `secrets` (mode 0600, atomically).
    public static func storeRemembered(_ secrets: [String], configurationDirectory: String) throws {
        try SecretFile.makeDirectory(configurationDirectory)
        try SecretFile.write(
            path: rememberedPhonesPath(in: configurationDirectory),
            bytes: Array(secrets.map { $0 + "\n" }.joined().utf8))
    }

    /// Forgets the remembered phones (`pair --revoke phone`): true if there was one.
    public static func forgetRememberedPhone(configurationDirectory: String) throws -> Bool {
        var forgot = false
        for path in [rememberedPhonesPath(in: configurationDirectory), oldTokenPath(in: configurationDirectory)]
        where FileSystem.fileExists(path) {
            try FileSystem.remove(path)
            forgot = true
        }
        return forgot
    }

    /// What to do at the browser's warning about mouse3d's own certificate, per browser (their words).
    public static let certificateSteps = [
        "at the browser's warning: Chrome: Advanced → Proceed (unsafe)",
        "Safari: Show Details → visit this website; Firefox: Advanced → Accept"
    ]

    /// Tells the user where to point the phone, on standard error, laid out for a default 80×24
    /// terminal: what is needed last, so that nothing needed scrolls off: the certificate's short
    /// fingerprint and the other URLs first, then the QR code of the first URL (version 3 or 4 at
    /// level L: 17 or 19 lines), that URL on a line of its own (under 80 columns with a LAN address),
    /// and the browser's certificate step.
    public static func announce(_ source: PhoneSource, certificateCreated: Bool, diagnostics: Diagnostics) {
        guard !diagnostics.quiet else { return }
        diagnostics.say(
            "phone: certificate SHA-256 \(source.fingerprint.prefix(23))…\(certificateCreated ? " (made now)" : "")")
        for other in source.urls.dropFirst() {
            diagnostics.say("phone: also \(other)\(other.contains(".local:") ? " (where .local names work)" : "")")
        }
        if let code = QRCodeEncoder.encode(source.url) {
            diagnostics.say("phone: on the phone (same network), scan this code or open the URL below:")
            StandardError.write(QRText.lines(code, colours: StandardError.isTerminal).joined(separator: "\n") + "\n")
        }
        diagnostics.say("phone: \(source.url)")
        for line in certificateSteps { diagnostics.say("phone: \(line)") }
    }
}
