/// Where a D-Bus bus listens, from an address string such as `DBUS_SYSTEM_BUS_ADDRESS`'s (the D-Bus
/// Specification, "Server Addresses"): `;`-separated entries of `transport:key=value,…`, values
/// percent-escaped. mouse3d connects to the first `unix:path=` or `unix:abstract=` entry.
public enum DBusAddress: Sendable, Equatable {
    /// A socket file.
    case path(String)
    /// A Linux abstract socket name (without the leading NUL).
    case abstract(String)

    /// The system bus when `DBUS_SYSTEM_BUS_ADDRESS` is not set.
    public static let systemDefault = DBusAddress.path("/var/run/dbus/system_bus_socket")

    /// The first usable entry of `text`, or nil if none is (another transport, a malformed value).
    public static func parse(_ text: String) -> DBusAddress? {
        for entry in text.split(separator: ";") {
            guard let colon = entry.firstIndex(of: ":"), entry[..<colon] == "unix" else { continue }
            for pair in entry[entry.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "="),
                    let value = unescaped(pair[pair.index(after: equals)...]), !value.isEmpty
                else { continue }
                switch pair[..<equals] {
                case "path": return .path(value)
                case "abstract": return .abstract(value)
                default: continue
                }
            }
        }
        return nil
    }

    /// `%XX` sequences decoded; nil if one is malformed or the result is not UTF-8.
    static func unescaped(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = value.utf8[...]
        while let c = utf8.popFirst() {
            guard c == UInt8(ascii: "%") else {
                bytes.append(c)
                continue
            }
            guard utf8.count >= 2, let hi = hexValue(utf8.popFirst()!), let lo = hexValue(utf8.popFirst()!) else {
                return nil
            }
            bytes.append(hi << 4 | lo)
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
