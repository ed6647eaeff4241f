import Mouse3DCore
import Mouse3DLinux
import SystemPackage

/// Keeps a sealed `send` pointed at its paired receivers as discovery finds them: a receiver found
/// (or found again, on another address or port) is streamed to there once it has answered an
/// authenticated link probe from that address (an announcement is not authenticated: anyone can
/// announce a paired receiver's fingerprint), one that stops announcing itself is paused until it
/// is back. Receivers found that are not paired are mentioned once, with
/// how to pair; nothing is paired by itself. Also times each link (``LinkProber``) once a second.
public final class SenderDiscovery {
    /// The Avahi client, when browsing and Avahi is there.
    public let discovery: ServiceDiscovery?
    /// Times the links.
    public let prober: LinkProber
    private var directory = ReceiverDirectory()
    private let targets: [SealedTargets]
    private let streamer: AttitudeStreamer
    private let diagnostics: Diagnostics
    private var mentioned: Set<String> = []
    private var saidUnavailable = false
    private var nextProbe: UInt64 = 0
    private var nextBrowseAgain: UInt64 = 0
    private var loop: EventLoop?
    private var probeRegistrations: [EventLoop.Registration] = []
    private var watchedProbeDescriptors: [FileDescriptor] = []
    /// Addresses announced for paired receivers, awaiting a probe reply that proves the pairing.
    private var candidates: [String: (index: Int, address: SocketAddress, instance: String)] = [:]
    /// The prober's name for the check of a candidate address of `fingerprint`.
    private static func checkName(_ fingerprint: String) -> String { "check " + fingerprint }

    /// Starts browsing (when `browse`); without Avahi says so once and streams to stored addresses.
    public init(targets: [SealedTargets], streamer: AttitudeStreamer, browse: Bool, diagnostics: Diagnostics) throws {
        self.targets = targets
        self.streamer = streamer
        self.diagnostics = diagnostics
        prober = LinkProber(senderID: targets.first?.identity.id ?? [])
        var found: ServiceDiscovery?
        if browse {
            do {
                found = try ServiceDiscovery(announcing: nil, browsing: ReceiverAnnouncement.serviceType)
            } catch {
                diagnostics.say(
                    "discovery: Avahi is not available (\(error)); streaming to the stored addresses (--to HOST chooses one)"
                )
            }
        }
        discovery = found
        for (i, target) in targets.enumerated() {
            if let address = target.address {
                try prober.track(
                    target.peer.fingerprint, address: address, secret: target.peer.secret, receiverID: target.peer.id)
            } else {
                streamer.pause(peerAt: i)
                diagnostics.say("'\(target.peer.name)': no address stored; waiting for discovery to find it")
            }
        }
    }

    /// Follows discovery events, reads probe replies and sends a probe to every link once a
    /// second, on `loop`.
    public func attach(to loop: EventLoop) {
        self.loop = loop
        if let discovery {
            loop.watch(discovery.descriptor) { [unowned self] in
                for event in discovery.takeEvents() { try handle(event) }
            }
        }
        watchProbeReplies()
        loop.timer(deadline: { [unowned self] in nextProbe }) { [unowned self] now in
            try prober.probeAll(now: now)
            nextProbe = now + 1_000_000_000
            browseAgainIfSilent(now: now)
        }
    }

    /// Watches the prober's sockets (one per address family; a receiver found on another family
    /// adds one).
    private func watchProbeReplies() {
        guard let loop, prober.descriptors != watchedProbeDescriptors else { return }
        loop.cancel(&probeRegistrations)
        watchedProbeDescriptors = prober.descriptors
        for descriptor in watchedProbeDescriptors {
            probeRegistrations.append(
                loop.watch(descriptor) { [unowned self] in
                    for name in try prober.readReplies(now: MonotonicClock.nanoseconds()) { try confirmed(name) }
                })
        }
    }

    /// A receiver that streams but has not answered a probe for 3 s may have moved without Avahi
    /// saying so (restarted at once on another port): browsing starts over, at most every 5 s, so
    /// that its current address is resolved anew and checked.
    private func browseAgainIfSilent(now: UInt64) {
        guard let discovery, now >= nextBrowseAgain else { return }
        let silent = targets.indices.contains { i in
            !streamer.peers[i].paused
                && prober.quality(of: targets[i].peer.fingerprint).map {
                    now &- $0.lastHeardNanoseconds > 3_000_000_000
                } == true
        }
        guard silent else { return }
        discovery.browseAgain()
        nextBrowseAgain = now + 5_000_000_000
    }

    /// A line per receiver for the end of the run.
    public func linkSummary(for index: Int) -> String {
        prober.quality(of: targets[index].peer.fingerprint).map { ", link \($0.summary)" } ?? ""
    }

    private func handle(_ event: DiscoveryEvent) throws {
        switch event {
        case .daemonUnavailable(let why):
            if !saidUnavailable { diagnostics.say("discovery: \(why); streaming to the addresses known so far") }
            saidUnavailable = true
        case .daemonRunning:
            saidUnavailable = false
        case .browseFailed(let why):
            diagnostics.say("discovery: browsing failed: \(why)")
        default:
            break
        }
        switch directory.apply(event) {
        case .reachable(let receiver)?:
            let fingerprint = receiver.announcement.fingerprint
            if let i = targets.firstIndex(where: { $0.peer.fingerprint == fingerprint }) {
                let peer = streamer.peers[i]
                guard peer.paused || peer.address != receiver.preferred else {
                    forgetCandidate(fingerprint)
                    return
                }
                guard candidates[fingerprint]?.address != receiver.preferred else { return }
                // Streamed to once it proves the pairing (see `confirmed`); probed at once.
                candidates[fingerprint] = (i, receiver.preferred, receiver.instance)
                try prober.track(
                    Self.checkName(fingerprint), address: receiver.preferred, secret: targets[i].peer.secret,
                    receiverID: targets[i].peer.id)
                watchProbeReplies()
                nextProbe = 0
            } else if receiver.announcement.wire == "sealed", !fingerprint.isEmpty, !mentioned.contains(fingerprint) {
                mentioned.insert(fingerprint)
                let host = SocketAddress.host(of: receiver.preferred.description)
                diagnostics.say(
                    "found receiver '\(receiver.announcement.name)' at \(receiver.preferred), fingerprint \(fingerprint), not paired: "
                        + "to stream to it, run `mouse3d pair` there, then `mouse3d pair \(host) CODE` here")
            }
        case .gone(let instance, let fingerprint)?:
            forgetCandidate(fingerprint)
            guard let i = targets.firstIndex(where: { $0.peer.fingerprint == fingerprint }), !streamer.peers[i].paused
            else { return }
            streamer.pause(peerAt: i)
            prober.forget(fingerprint)
            diagnostics.say(
                "'\(targets[i].peer.name)' stopped announcing itself ('\(instance)'); paused until it is back")
        case .unusable(let instance, let problem)?:
            if mentioned.insert("unusable " + instance).inserted {
                diagnostics.say("discovery: ignoring '\(instance)': \(problem)")
            }
        case nil:
            break
        }
    }

    /// A probe reply came back on link `name`: if it checks a candidate address, that address holds
    /// the pairing, and the stream goes there.
    private func confirmed(_ name: String) throws {
        guard name.hasPrefix("check ") else { return }
        let fingerprint = String(name.dropFirst("check ".count))
        guard let candidate = candidates.removeValue(forKey: fingerprint) else { return }
        prober.forget(name)
        let target = targets[candidate.index]
        try streamer.redirect(peerAt: candidate.index, to: candidate.address)
        try prober.track(
            fingerprint, address: candidate.address, secret: target.peer.secret, receiverID: target.peer.id)
        watchProbeReplies()
        nextProbe = 0  // the link's own figures start now
        diagnostics.say(
            "'\(target.peer.name)' found at \(candidate.address) (announced as '\(candidate.instance)', "
                + "answered as the paired receiver); streaming to it")
    }

    private func forgetCandidate(_ fingerprint: String) {
        if candidates.removeValue(forKey: fingerprint) != nil { prober.forget(Self.checkName(fingerprint)) }
    }
}
