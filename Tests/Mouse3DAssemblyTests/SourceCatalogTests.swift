import Mouse3DAssembly
import Mouse3DCore
import Testing

@Suite("The source catalog: every kind's forms, help and check in one place")
struct SourceCatalogTests {
    /// A layer setting `send.source` to `text` from line 2 of /u/config.toml.
    func layer(_ text: String) throws -> ConfigurationLayer {
        var layer = ConfigurationLayer()
        try layer.set("send.source", .text(text), origin: .file(path: "/u/config.toml", line: 2))
        return layer
    }

    @Test("Every form of every kind parses and passes a file's check")
    func everyForm() throws {
        for text in ["auto", "evdev:/dev/input/event3", "iio:accel_3d+gyro_3d", "replay:a.csv", "phone", "phone:8443"] {
            #expect(SourceCatalog.parse(text) != nil, "\(text)")
            try SourceCatalog.check(try layer(text))
        }
    }

    @Test("A kind no entry knows is refused by the catalog with the file, line and key; a malformed one by the schema")
    func unknownKind() throws {
        // The schema (Core) checks the shape only: usb:3 passes it, and the catalog refuses it.
        let usb = try layer("usb:3")
        do {
            try SourceCatalog.check(usb)
            Issue.record("usb:3 accepted")
        } catch {
            #expect(error.origin == .file(path: "/u/config.toml", line: 2))
            #expect(
                error.description.hasPrefix("/u/config.toml:2: send.source: 'usb:3' is not a source: auto, evdev:PATH"),
                "\(error)")
        }
        for malformed in ["replay:", "", ":x", "Phone"] {
            let refused = (try? layer(malformed)) == nil
            #expect(refused, "'\(malformed)' passed the schema's shape check")
        }
    }

    @Test("--source help is made from the kinds; record's leaves out the kinds it refuses")
    func help() {
        let all = SourceCatalog.help()
        #expect(all.hasPrefix("auto (the best sensor found), evdev:/dev/input/eventN"), "\(all)")
        #expect(all.contains(", replay:LOG.csv, ") && all.contains(", or phone[:[ADDR:]PORT] ("), "\(all)")
        let recording = SourceCatalog.help(recording: true)
        #expect(!recording.contains("replay:") && recording.contains("phone["), "\(recording)")
    }
}
