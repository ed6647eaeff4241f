import Mouse3DCore
import Mouse3DLinux
import Mouse3DPhone

/// A phone's browser, `phone[:[ADDR:]PORT]` (every address and port 24933 by default): its page
/// served over HTTPS, its URL and QR code said; its own buttons (left and right click, recenter,
/// hold to move).
public struct PhoneSourceKind: SourceKind, Equatable {
    public var address: String
    public var port: UInt16

    /// A phone source on `address`:`port`.
    public init(address: String, port: UInt16) {
        self.address = address
        self.port = port
    }

    public static func parse(_ argument: String) -> PhoneSourceKind? {
        if argument == "phone" { return .init(address: "0.0.0.0", port: PhoneSource.defaultPort) }
        guard let spec = argument.valueAfter("phone:"), let parsed = WebAccessPolicy.parse(spec) else { return nil }
        // A bare port means every address (the phone is another machine).
        return .init(address: spec.contains(":") ? parsed.address : "0.0.0.0", port: parsed.port)
    }

    public static let forms = ["phone[:[ADDR:]PORT]"]
    public static let help =
        "phone[:[ADDR:]PORT] (a phone's browser: scan the QR code shown; port \(PhoneSource.defaultPort))"
    public var description: String { "phone:\(address.contains(":") ? "[\(address)]" : address):\(port)" }
    public var buttonFlagsRefusal: String? {
        "--clutch, --recenter, --primary, --secondary and --recalibrate read a controller's buttons; the phone page has its own (left click, right click, recenter, hold to move)."
    }
    public static let recordRefusal: String? = nil

    public func open(_ purpose: SourcePurpose, configuration: inout Configuration, diagnostics: Diagnostics) throws
        -> OpenedSource
    {
        let remember: Bool
        if case .fuse(_, _, let rememberPhone, _) = purpose { remember = rememberPhone } else { remember = false }
        let phone = try Self.openPhone(address: address, port: port, remember: remember, diagnostics: diagnostics)
        let buttons: ButtonSettings?
        if case .fuse = purpose {
            let map = GamepadButtonMap(
                clutch: PhoneSource.holdToMoveCode, recenter: PhoneSource.recenterCode, primary: PhoneSource.leftCode,
                secondary: PhoneSource.rightCode)
            buttons = ButtonSettings(map: map, clutchMode: .hold)
        } else {
            buttons = nil
        }
        return OpenedSource(
            source: phone, buttons: buttons, summary: phone.summary, isReplay: false, calibrationKey: "phone",
            gamepadAxes: phone.frameAxes)
    }

    /// The phone page's server on `address`:`port` (its certificate made or loaded for the machine's
    /// addresses, its token fresh, the remembered phones known), the URLs, QR code and the certificate
    /// step said.
    static func openPhone(address: String, port: UInt16, remember: Bool, diagnostics: Diagnostics) throws -> PhoneSource
    {
        do {
            let lan = address == "0.0.0.0" || address == "::" ? LocalAddresses.current() : []
            // The certificate covers the address in the QR code's URL (and the names): not every
            // address the machine has (rotating IPv6 ones, VPNs), which would make it anew, and the
            // browser warn again, at each change, and show them all to anyone who connects.
            let (certificate, created) = try PhoneSetup.certificate(addresses: lan.prefix(1).map(\.address))
            let folder = FileSystem.userConfigurationDirectory
            let credentials = try PhoneSetup.credentials(remember: remember, configurationDirectory: folder)
            let phone = try PhoneSource(
                address: address, port: port, credentials: credentials, certificate: certificate,
                lanAddresses: lan.map(\.urlHost))
            phone.report = { diagnostics.say("phone: \($0)") }
            phone.remember = { try PhoneSetup.storeRemembered($0, configurationDirectory: folder) }
            if let setup = try AxesSetupStore.load(device: "phone") {
                phone.use(setup)
                diagnostics.say("phone: \(setup.summary)")
            }
            PhoneSetup.announce(phone, certificateCreated: created, diagnostics: diagnostics)
            return phone
        } catch {
            throw ActionableError("--source phone: \(error)")
        }
    }
}
