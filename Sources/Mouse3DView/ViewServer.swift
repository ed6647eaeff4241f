import Dispatch
import FlyingFox
import FlyingSocks
import Foundation
import Mouse3DCore
import Synchronization

/// The live view: an HTTP server (FlyingFox, on its own socket pool and tasks) that serves the page
/// and pushes every stream's latest attitude over a WebSocket at most 60 times a second.
///
/// The event loop only ever calls ``publish(_:)``, which stores the update in a mailbox under a
/// lock (latest wins, at most ``maximumStreams`` streams): a slow or stuck browser costs the input
/// path nothing, and each WebSocket's outgoing queue holds one message at most.
public final class ViewServer: Sendable {
    /// Streams kept for the page; updates of further streams are not shown.
    public static let maximumStreams = 64
    /// The fastest the page is updated, in Hz: a display's rate. Pages are woken by the updates
    /// themselves, on a 60 Hz schedule (a 100 Hz source wakes them at 0, 20, 40, 50, 70, 90 ms...:
    /// 60 a second on average), and not at all while nothing arrives.
    public static let updateHertz = 60.0

    /// Who may use it.
    public let policy: ViewAccessPolicy
    /// The address and port it listens on.
    public let address: String, port: UInt16

    struct State: ~Copyable {
        var streams: [String: ViewStreamState] = [:]
        var order: [String] = []
        var refusals: [ViewAccessPolicy.Refusal: Int] = [:]
        var version: UInt64 = 0
        /// The connected pages' wake-ups, and when they were last woken (monotonic ns).
        var pages: [UInt64: AsyncStream<Void>.Continuation] = [:]
        var nextPage: UInt64 = 0
        var nextWake: UInt64 = 0
    }

    let state = Mutex(State())
    let server: HTTPServer
    let task: Task<Void, any Error>

    /// Listens on `address` (numeric IPv4 or IPv6) and `port` (0: any free one, see ``port``); throws
    /// if it cannot (the port is taken, the address is not this machine's), within 5 s.
    public init(address: String, port: UInt16) throws {
        self.address = address
        let socketAddress: any SocketAddress = address.contains(":")
            ? try sockaddr_in6.inet6(ip6: address, port: port) : try sockaddr_in.inet(ip4: address, port: port)
        let server = HTTPServer(address: socketAddress, timeout: 15, logger: .disabled)
        self.server = server
        task = Task { try await server.run() }
        let listening = Self.block { () async throws -> UInt16 in
            try await server.waitUntilListening(timeout: 5)
            switch await server.listeningAddress {
            case .ip4(_, let p)?, .ip6(_, let p)?: return p
            default: return port
            }
        }
        switch listening {
        case .success(let actual): self.port = actual
        case .failure(let error):
            task.cancel()
            throw ViewServerError(message: "cannot serve the view on \(address):\(port): \(error)")
        }
        policy = ViewAccessPolicy(address: address, port: self.port)
        let view = UncheckedBox(value: self)
        _ = Self.block { await view.value.installRoutes() }
    }

    /// Runs `work` on the concurrency pool and waits for it (start-up only, never on the input path).
    static func block<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        Task {
            let r: Result<T, any Error>
            do { r = .success(try await work()) } catch { r = .failure(error) }
            result.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    deinit { task.cancel() }

    /// Stops serving.
    public func stop() { task.cancel() }

    /// Hands the latest attitude of a stream to the page (from the event loop; never blocks on the network).
    public func publish(label: String, sequence: UInt64, roll: Double, pitch: Double, yaw: Double, nanoseconds: UInt64) {
        state.withLock { s in
            if var existing = s.streams[label] {
                existing.take(sequence: sequence, roll: roll, pitch: pitch, yaw: yaw, nanoseconds: nanoseconds)
                s.streams[label] = existing
            } else {
                guard s.streams.count < Self.maximumStreams else { return }
                s.streams[label] = ViewStreamState(
                    label: label, frames: 1, sequence: sequence, rollDegrees: roll, pitchDegrees: pitch, yawDegrees: yaw,
                    receivedNanoseconds: nanoseconds)
                s.order.append(label)
            }
            s.version &+= 1
            // Wake the pages at most `updateHertz` times a second: no timer runs while nothing arrives.
            let interval = UInt64(1e9 / Self.updateHertz)
            if !s.pages.isEmpty && nanoseconds >= s.nextWake {
                for page in s.pages.values { page.yield() }
                // On schedule, not "an interval after this one", so slow sources still give 60 a second;
                // after a pause the schedule starts again from now.
                s.nextWake = nanoseconds - s.nextWake > interval ? nanoseconds + interval : s.nextWake + interval
            }
        }
    }

    /// Registers a page's wake-ups; returns its key for ``removePage(_:)``.
    func addPage(_ wake: AsyncStream<Void>.Continuation) -> UInt64 {
        state.withLock { s in
            s.nextPage += 1
            s.pages[s.nextPage] = wake
            return s.nextPage
        }
    }

    func removePage(_ key: UInt64) { _ = state.withLock { $0.pages.removeValue(forKey: key) } }

    /// Refusals so far, by reason.
    public var refusals: [ViewAccessPolicy.Refusal: Int] { state.withLock { $0.refusals } }

    func refuse(_ reason: ViewAccessPolicy.Refusal) -> HTTPResponse {
        state.withLock { $0.refusals[reason, default: 0] += 1 }
        let status: HTTPStatusCode = reason == .foreignHost ? .init(421, phrase: "Misdirected Request") : .forbidden
        return HTTPResponse(statusCode: status, headers: [.contentType: "text/plain"], body: Data("refused: \(reason.rawValue)\n".utf8))
    }

    /// The latest message for the page and its version, or nil if nothing changed since `after`. The
    /// lock is held only to copy the state: the event loop's ``publish`` never waits for JSON.
    func message(after version: UInt64?) -> (String, UInt64)? {
        let copy: ([ViewStreamState], [ViewAccessPolicy.Refusal: Int], UInt64)? = state.withLock { s in
            guard s.version != version else { return nil }
            return (s.order.compactMap { s.streams[$0] }, s.refusals, s.version)
        }
        guard let (streams, refusals, v) = copy else { return nil }
        return (ViewJSON.update(streams, refusals: refusals), v)
    }

    func installRoutes() async {
        let socket = WebSocketHTTPHandler.webSocket(ViewStream(view: self))
        await server.appendRoute("*") { [weak self] request in
            guard let self else { return HTTPResponse(statusCode: .serviceUnavailable) }
            let stream = request.path == "/stream"
            if let refusal = policy.check(host: request.headers[.host], origin: request.headers[HTTPHeader("Origin")], stream: stream) {
                return refuse(refusal)
            }
            switch (request.method, request.path) {
            case (.GET, "/"), (.GET, "/index.html"):
                return HTTPResponse(
                    statusCode: .ok,
                    headers: [
                        .contentType: "text/html; charset=utf-8",
                        HTTPHeader("Content-Security-Policy"):
                            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
                        HTTPHeader("Cache-Control"): "no-store",
                        HTTPHeader("X-Content-Type-Options"): "nosniff",
                    ],
                    body: Data(ViewPage.html.utf8))
            case (.GET, "/stream"):
                return try await socket.handleRequest(request)
            default:
                return HTTPResponse(statusCode: .notFound)
            }
        }
    }
}

/// An error starting the view.
public struct ViewServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A value handed across a task boundary that the compiler cannot prove safe (set once, read once).
struct UncheckedBox<Value>: @unchecked Sendable { var value: Value }

/// One page's WebSocket: the latest state, at most 60 times a second and only when it changed, woken
/// by the updates themselves (no timer); the outgoing queue holds one message, so a stalled browser
/// holds one message of memory.
struct ViewStream: WSMessageHandler {
    let view: ViewServer

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let (messages, continuation) = AsyncStream<WSMessage>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let view = self.view
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = view.addPage(wake)
        wake.yield()  // the state as it is now, at once
        let pusher = Task {
            var version: UInt64?
            for await _ in wakes {
                if let (text, v) = view.message(after: version) {
                    version = v
                    continuation.yield(.text(text))
                }
            }
            continuation.finish()
        }
        let reader = Task {
            for await message in client {
                if case .close = message { break }
            }
            view.removePage(key)
            wake.finish()
            pusher.cancel()
        }
        continuation.onTermination = { _ in
            view.removePage(key)
            wake.finish()
            pusher.cancel()
            reader.cancel()
        }
        return messages
    }
}
