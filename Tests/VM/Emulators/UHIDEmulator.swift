import CLinux
import Glibc
import Mouse3DLinux

/// What every emulator shares: a uhid device whose requests are answered on a thread of its own
/// until it is unplugged, and an unplug that waits until the kernel has removed what it created.
/// Subclasses answer requests (``handle(_:)``) and say when their devices are gone (``isGone()``).
public class UHIDEmulator: @unchecked Sendable {
    // @unchecked: `device` is Sendable; mutable state is guarded by `lock`.
    let device: UHIDDevice
    let lock = NSLockLite()
    var stopped = false

    init(identity: UHIDDevice.Identity, reportDescriptor: [UInt8]) throws {
        device = try UHIDDevice(identity: identity, reportDescriptor: reportDescriptor)
        let device = self.device
        DedicatedThread.start { [weak self] in
            while let self, !self.lock.withLock({ self.stopped }) {
                if (try? EventLoop.waitUntilReadable([device.descriptor], timeoutNanoseconds: 50_000_000)) == true,
                    let request = try? device.nextRequest()
                {
                    self.handle(request)
                }
            }
        }
    }

    deinit {
        lock.withLock { stopped = true }
        try? device.destroy()
    }

    /// Answers one request from the driver. The default refuses reports and acknowledges sets.
    func handle(_ request: UHIDDevice.Request) {
        switch request {
        case .getReport(let id, _, _): try? device.failGetReport(id: id)
        case .setReport(let id, _, _, _): try? device.replyToSetReport(id: id)
        case .output, .lifecycle: break
        }
    }

    /// Whether the kernel has removed every device this emulator made.
    func isGone() -> Bool { true }

    /// Unplugs the device and waits (up to 5 s) until the kernel has removed what it created.
    public func unplug() throws {
        lock.withLock { stopped = true }
        try device.destroy()
        let end = MonotonicClock.nanoseconds() + 5_000_000_000
        while MonotonicClock.nanoseconds() < end && !isGone() {
            MonotonicClock.sleep(nanoseconds: 20_000_000)
        }
    }
}
