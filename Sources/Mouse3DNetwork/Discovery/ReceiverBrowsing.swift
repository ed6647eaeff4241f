import Mouse3DCore
import Mouse3DLinux

/// Browses for mouse3d receivers for up to `seconds` (less if Avahi is not there, or once `enough`
/// says so). Returns what was found and, per instance, milliseconds until it was first resolved.
/// Problems go to standard error in one line, ending with `fallback` (what happens instead).
public func browseReceivers(
    seconds: Double, fallback: String, until enough: @escaping (ReceiverDirectory) -> Bool = { _ in false }
) -> (ReceiverDirectory, [String: Int]) {
    var directory = ReceiverDirectory()
    var foundAfter: [String: Int] = [:]
    let start = MonotonicClock.nanoseconds()
    let discovery: ServiceDiscovery
    do {
        discovery = try ServiceDiscovery(announcing: nil, browsing: ReceiverAnnouncement.serviceType)
    } catch {
        StandardError.write("mouse3d: discovery: Avahi is not available (\(error)); \(fallback)\n")
        return (directory, foundAfter)
    }
    let loop = try? EventLoop(signals: [])
    var outcome: Bool?  // set when browsing should end: Avahi went away, or enough was found
    loop?.watch(discovery.descriptor) {
        for event in discovery.takeEvents() {
            switch event {
            case .daemonUnavailable(let why):
                StandardError.write("mouse3d: discovery: \(why); \(fallback)\n")
                outcome = false
                return
            case .browseFailed(let why):
                StandardError.write("mouse3d: discovery: browsing failed: \(why)\n")
            case .found(let service):
                if case .unusable(let instance, let problem)? = directory.apply(event) {
                    StandardError.write(
                        "mouse3d: discovery: ignoring '\(instance)' at \(service.address): \(problem)\n")
                }
                if foundAfter[service.name] == nil {
                    foundAfter[service.name] = Int((MonotonicClock.nanoseconds() - start) / 1_000_000)
                }
            default:
                _ = directory.apply(event)
            }
        }
        if enough(directory) { outcome = true }
    }
    _ = try? loop?.run(until: start + UInt64(seconds * 1e9)) { outcome != nil }
    return (directory, foundAfter)
}
