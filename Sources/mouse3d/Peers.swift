import ArgumentParser
import Mouse3DCore
import Mouse3DLinux
import Mouse3DNetwork

extension Mouse3D {
    /// `mouse3d peers`: the receivers on the local network and in the pairing store.
    struct Peers: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List mouse3d receivers on the local network (DNS-SD through Avahi) and the paired ones.",
            discussion: """
                Browses for `_mouse3d._udp` for --timeout seconds and lists every receiver found with its \
                addresses, port, outputs and whether this machine is paired with it; paired receivers \
                not seen on the network are listed at their stored address. Each paired receiver's link \
                is timed with authenticated probes to its stream port (round-trip time and the share of \
                probes unanswered). Without Avahi it says so and lists the paired receivers only.
                """)

        @Flag(help: "Print JSON (an array of objects) instead of a table.")
        var json = false

        @Option(help: "How long to browse, in seconds.")
        var timeout: Double = 2

        @Option(help: "Link probes per paired receiver (0: do not time links).")
        var probes: Int = 5

        func validate() throws {
            guard timeout.isFinite && timeout >= 0 && timeout <= 60 else {
                throw ValidationError("--timeout must be between 0 and 60 seconds.")
            }
            guard (0...100).contains(probes) else { throw ValidationError("--probes must be between 0 and 100.") }
        }

        /// One line of the listing.
        struct Row {
            var name: String
            var instance: String?
            var hostName: String?
            var addresses: [SocketAddress]
            var fingerprint: String
            var paired: PairedPeer?
            var wire: String?
            var outputs: [String]
            var link: LinkProber.Quality?
            /// Milliseconds from the start of browsing until it was first resolved.
            var foundAfterMilliseconds: Int?
        }

        func run() throws {
            let configuration = try EffectiveConfiguration.load(flags: ConfigurationLayer())
            let base = FileSystem.userConfigurationDirectory
            let (paired, problems) = PeerStore(base: base, role: .receiver).load()
            for problem in problems { StandardError.write("mouse3d: \(problem)\n") }
            let (directory, foundAfter) = browseReceivers(seconds: timeout, fallback: "listing paired receivers only")
            var rows = Self.rows(
                found: directory.receivers, foundAfter: foundAfter, paired: paired,
                port: UInt16(configuration[.networkPort]))
            if probes > 0, rows.contains(where: { $0.paired != nil && !$0.addresses.isEmpty }),
                FileSystem.fileExists(PeerIdentity.path(in: base))
            {
                let identity = try loadIdentity(base: base, say: { _ in })
                try measure(&rows, senderID: identity.id)
            }
            if json {
                print(JSONText.objectArray(rows.map(Self.json)))
                return
            }
            guard !rows.isEmpty else {
                print(
                    "No mouse3d receivers found, and none paired. On the receiving machine run `mouse3d receive` "
                        + "(it announces itself), then pair: `mouse3d pair` there, `mouse3d pair HOST CODE` here.")
                return
            }
            for row in rows { Self.printRow(row) }
        }

        /// Sends --probes probes to each paired receiver, 50 ms apart, and waits up to 500 ms for the last replies.
        func measure(_ rows: inout [Row], senderID: [UInt8]) throws {
            let prober = LinkProber(senderID: senderID)
            for row in rows {
                guard let peer = row.paired, let address = row.addresses.first else { continue }
                try prober.track(peer.fingerprint, address: address, secret: peer.secret, receiverID: peer.id)
            }
            try prober.measure(probes: probes, spacingNanoseconds: 50_000_000, graceNanoseconds: 500_000_000)
            for i in rows.indices {
                if let peer = rows[i].paired { rows[i].link = prober.quality(of: peer.fingerprint) }
            }
        }

        static func json(_ row: Row) -> String {
            let s = JSONText.string
            var link = "null"
            if let q = row.link {
                link =
                    "{\"rtt_ms\":\(q.medianRoundTrip.map { "\(Double($0) / 1e6)" } ?? "null"),"
                    + "\"jitter_ms\":\(q.roundTripJitter.map { "\(Double($0) / 1e6)" } ?? "null"),\"loss\":\(q.probeLoss.map { "\($0)" } ?? "null"),"
                    + "\"probes\":\(q.sent),\"replies\":\(q.answered),\"frames_accepted\":\(q.framesAccepted.map { "\($0)" } ?? "null")}"
            }
            return "{\"name\":\(s(row.name)),\"instance\":\(s(row.instance)),\"host\":\(s(row.hostName)),"
                + "\"addresses\":\(JSONText.array(row.addresses.map { SocketAddress.host(of: $0.description) })),"
                + "\"port\":\(row.addresses.first.map { "\($0.port)" } ?? "null"),\"fingerprint\":\(s(row.fingerprint.isEmpty ? nil : row.fingerprint)),"
                + "\"announced\":\(row.instance != nil),\"paired\":\(row.paired != nil),\"paired_name\":\(s(row.paired?.name)),"
                + "\"found_after_ms\":\(row.foundAfterMilliseconds.map { "\($0)" } ?? "null"),\"wire\":\(s(row.wire)),\"outputs\":\(JSONText.array(row.outputs)),\"link\":\(link)}"
        }
    }
}

extension Mouse3D.Peers {
    /// A row per receiver found, then one per paired receiver not found (at its stored address).
    static func rows(
        found: [ReceiverDirectory.Receiver], foundAfter: [String: Int], paired: [PairedPeer], port: UInt16
    ) -> [Row] {
        var rows = found.map { r in
            Row(
                name: r.announcement.name, instance: r.instance, hostName: r.hostName, addresses: r.addresses,
                fingerprint: r.announcement.fingerprint,
                paired: paired.first { $0.fingerprint == r.announcement.fingerprint },
                wire: r.announcement.wire, outputs: r.announcement.outputs,
                foundAfterMilliseconds: foundAfter[r.instance])
        }
        for peer in paired where !rows.contains(where: { $0.fingerprint == peer.fingerprint }) {
            let stored = peer.address.flatMap { try? SocketAddress.resolve($0, defaultPort: port, passive: false) }
            rows.append(
                Row(
                    name: peer.name, addresses: stored.map { [$0] } ?? [], fingerprint: peer.fingerprint,
                    paired: peer, outputs: []))
        }
        return rows
    }

    /// A receiver's lines: name, addresses and state, then its details indented.
    static func printRow(_ row: Row) {
        let state =
            row.paired.map { "paired as '\($0.name)'" }
            ?? (row.wire == "sealed" ? "not paired" : "unauthenticated (\(row.wire ?? "?"))")
        let place =
            row.addresses.isEmpty ? "no address" : row.addresses.map(\.description).joined(separator: ", ")
        print(
            "\(row.name)  \(place)  \(state)"
                + (row.instance == nil ? "  (not seen on the network; stored address)" : ""))
        var details: [String] = []
        if !row.fingerprint.isEmpty { details.append("fingerprint \(row.fingerprint)") }
        if !row.outputs.isEmpty { details.append("outputs \(row.outputs.joined(separator: ","))") }
        if let host = row.hostName { details.append("host \(host)") }
        if row.paired != nil { details.append("link " + (row.link?.summary ?? "not measured")) }
        if !details.isEmpty { print("    " + details.joined(separator: ", ")) }
    }
}
