import Glibc

/// Runs a long-lived loop on a thread of its own (`pthread_create`). Dispatch's global queues are
/// sized to the CPUs, so on a one-CPU VM a second blocking loop would wait behind the first.
public enum DedicatedThread {
    final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        precondition(status == 0, "pthread_create failed: \(status)")
        pthread_detach(thread)
    }
}
