/// Puts a phone's readings on this machine's monotonic clock without letting network jitter or a
/// jump of the page's clock reach the fusion.
///
/// The intervals between readings are the phone's own (its event times): exact, whatever the
/// network does. Only where that run of times sits on this machine's clock is estimated: a message
/// cannot arrive before its last reading was taken, so `arrival − reading time` is the offset plus
/// that message's delay, and its minimum over the last ``windowNanoseconds`` is the offset plus the
/// least delay seen. The mapping follows that minimum, but moves at most ``maximumSlew`` of the
/// time that passed (so a change of the estimate reads as a 0.2 % rate error for a moment, never
/// as a step); the two clocks' drift (tens of ppm) is well within that. It moves while the phone is
/// still: a turn integrated over intervals 0.2 % short is 0.2 % short (3.6 pointer counts of a 90°
/// turn, which a turn back then fails to undo), so while it turns the mapping holds, unless it is
/// ``holdLimitNanoseconds`` or more off the estimate. A page whose clock jumps
/// (backward: a reload starts a new time origin; or forward past ``stepNanoseconds`` beyond the
/// arrival) is anchored anew, after the last time handed out: output times only ever increase.
public struct PhoneClock: Sendable {
    /// How far back the least delay is looked for.
    public static let windowNanoseconds: Int64 = 10_000_000_000
    /// The most the mapping moves per unit of time passed.
    public static let maximumSlew = 0.002
    /// For this long after an anchor, it may move faster (the first message's delay is unknown):
    /// ``startSlew`` of the time passed.
    public static let startNanoseconds: Int64 = 2_000_000_000, startSlew = 0.05
    /// A reading this far from where the estimate puts it is a jump of the page's clock.
    public static let stepNanoseconds: Int64 = 1_000_000_000
    /// While the phone turns the mapping holds, unless it is this far off the estimate.
    public static let holdLimitNanoseconds: Int64 = 50_000_000

    /// Local = phone + offset (ns), as applied now; nil before the first message.
    public private(set) var offset: Int64?
    /// Candidate offsets (arrival − last reading) with their arrival, oldest first (a monotonic
    /// deque: each is smaller than every one before it still held).
    var candidates: [(offset: Int64, arrival: Int64)] = []
    var lastPhone: Int64?
    var lastOutput: Int64 = .min
    var anchoredPhone: Int64 = 0
    /// Times the page's clock jumped and the mapping was anchored anew.
    public private(set) var steps = 0

    public init() {}

    /// The least `arrival − reading` over the window: the offset plus the least delay.
    public var estimate: Int64? { candidates.first?.offset }

    /// Maps one message's reading times (ms on the page's clock) that arrived at `arrival` (local
    /// monotonic ns) to local nanoseconds, in order, each after the one before. `still`: the phone
    /// did not turn over these readings, so the mapping may move (see the type's description).
    public mutating func map(_ milliseconds: [Double], arrival: Int64, still: Bool = true) -> [Int64] {
        guard let lastMs = milliseconds.last else { return [] }
        let phone = milliseconds.map { Int64(($0 * 1e6).rounded()) }
        let last = Int64((lastMs * 1e6).rounded())
        let candidate = arrival &- last
        // A jump of the page's clock: backward (a reload starts a new time origin), or forward so far
        // that its readings would be taken after they arrived. (Readings long before their arrival
        // are a late message, not a jump.)
        if let previous = lastPhone, let applied = offset,
            phone[0] < previous || candidate < applied &- Self.stepNanoseconds
        {
            candidates.removeAll()
            offset = nil
            steps += 1
        }
        // The window's minimum: drop what is too old, and what this one undercuts.
        while let first = candidates.first, arrival &- first.arrival > Self.windowNanoseconds {
            candidates.removeFirst()
        }
        while let back = candidates.last, back.offset >= candidate { candidates.removeLast() }
        candidates.append((candidate, arrival))
        let target = candidates[0].offset
        // The offset at the previous message's last reading, and at this one's: in between, each
        // reading's offset is interpolated, so every interval changes by at most the slew.
        let start: Int64
        let previous: Int64
        if let applied = offset, let p = lastPhone {
            let passed = max(0, last &- p)
            let slew = last &- anchoredPhone < Self.startNanoseconds ? Self.startSlew : Self.maximumSlew
            let off = target &- applied
            let room = still || abs(off) >= Self.holdLimitNanoseconds ? Int64(Double(passed) * slew) : 0
            start = applied
            previous = p
            offset = applied + min(max(off, -room), room)
        } else {
            start = target
            previous = phone[0]
            offset = target
            anchoredPhone = phone[0]
        }
        lastPhone = last
        let end = offset!
        let span = Double(max(1, last &- previous))
        var out: [Int64] = []
        out.reserveCapacity(phone.count)
        for p in phone {
            let share = min(1, max(0, Double(p &- previous) / span))
            let t = max(p &+ start &+ Int64((Double(end &- start) * share).rounded()), lastOutput &+ 1)
            out.append(t)
            lastOutput = t
        }
        return out
    }
}
