import ArgumentParser
import Mouse3DLinux

/// A `HOST[:PORT]`, `[IPv6][:PORT]`, `:PORT` or `PORT` on the command line (`--listen`, `--dsu`,
/// `--opentrack`), checked for form while the command line is parsed, so that a bad one fails
/// before anything starts (exit 64); names are looked up when the command runs.
struct AddressArgument: CustomStringConvertible {
    /// As given.
    let text: String

    init(parsing text: String) throws {
        do {
            _ = try SocketAddress.split(text)
        } catch {
            throw ValidationError("\(error); for example 127.0.0.1:24930, [::1]:24930, :24930 or laptop.local")
        }
        self.text = text
    }

    var description: String { text }
}
