import Glibc

/// Debian's SDL 2 (libsdl2-2.0-0, loaded at run time: the VM has no headers, and a game links it
/// so), used as a game uses it: which devices SDL takes as game controllers, with no mapping
/// supplied, and what it reads from their axes and buttons. Facts from SDL 2.26.5's
/// include/SDL.h, SDL_gamecontroller.h and SDL_joystick.h: the init flags, the axis and button
/// numbers, SDL_bool as an int.
final class SDLGameControllers {
    typealias InitFunction = @convention(c) (UInt32) -> Int32
    typealias VoidFunction = @convention(c) () -> Void
    typealias CountFunction = @convention(c) () -> Int32
    typealias IndexTest = @convention(c) (Int32) -> Int32
    typealias IndexName = @convention(c) (Int32) -> UnsafePointer<CChar>?
    typealias IndexID = @convention(c) (Int32) -> UInt16
    typealias Open = @convention(c) (Int32) -> OpaquePointer?
    typealias GetAxis = @convention(c) (OpaquePointer?, Int32) -> Int16
    typealias GetButton = @convention(c) (OpaquePointer?, Int32) -> UInt8
    typealias Mapping = @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    typealias GetError = @convention(c) () -> UnsafePointer<CChar>?

    static let library = "libSDL2-2.0.so.0"
    static let initJoystick: UInt32 = 0x0000_0200
    static let initGameController: UInt32 = 0x0000_2000
    /// SDL_CONTROLLER_AXIS_*.
    enum Axis: Int32 { case leftX = 0, leftY, rightX, rightY, triggerLeft, triggerRight }
    /// SDL_CONTROLLER_BUTTON_* (positions: A the bottom face button).
    enum Button: Int32 { case a = 0, b, x, y, back, guide, start, leftStick, rightStick, leftShoulder, rightShoulder }

    private let handle: UnsafeMutableRawPointer
    private let quit: VoidFunction
    private let update: VoidFunction
    private let getAxis: GetAxis
    private let getButton: GetButton
    private let getError: GetError

    /// A controller SDL opened.
    struct Controller {
        let pointer: OpaquePointer
        let name: String
        let vendor: UInt16
        let product: UInt16
        let mapping: String
    }

    /// Loads SDL and initialises its joystick and game controller parts; nil (with why) when it is
    /// not in the VM.
    init() throws {
        guard let handle = dlopen(Self.library, RTLD_NOW) else {
            throw VMTestFailure(
                description:
                    "\(Self.library) is not in the VM (\(String(cString: dlerror()))): Tests/setup-debian.sh installs libsdl2-2.0-0 and Tests/VM/run.sh copies it"
            )
        }
        self.handle = handle
        func symbol<T>(_ name: String, as: T.Type) throws -> T {
            guard let pointer = dlsym(handle, name) else {
                throw VMTestFailure(description: "\(Self.library) has no \(name)")
            }
            return unsafeBitCast(pointer, to: T.self)
        }
        quit = try symbol("SDL_Quit", as: VoidFunction.self)
        update = try symbol("SDL_GameControllerUpdate", as: VoidFunction.self)
        getAxis = try symbol("SDL_GameControllerGetAxis", as: GetAxis.self)
        getButton = try symbol("SDL_GameControllerGetButton", as: GetButton.self)
        getError = try symbol("SDL_GetError", as: GetError.self)
        let start = try symbol("SDL_Init", as: InitFunction.self)
        count = try symbol("SDL_NumJoysticks", as: CountFunction.self)
        isGameController = try symbol("SDL_IsGameController", as: IndexTest.self)
        nameForIndex = try symbol("SDL_GameControllerNameForIndex", as: IndexName.self)
        vendorForIndex = try symbol("SDL_JoystickGetDeviceVendor", as: IndexID.self)
        productForIndex = try symbol("SDL_JoystickGetDeviceProduct", as: IndexID.self)
        open = try symbol("SDL_GameControllerOpen", as: Open.self)
        mappingOf = try symbol("SDL_GameControllerMapping", as: Mapping.self)
        // SDL would take SIGINT and SIGTERM for itself (its event part, which the game controller
        // part starts); the runner keeps its own.
        setenv("SDL_NO_SIGNAL_HANDLERS", "1", 1)
        guard start(Self.initJoystick | Self.initGameController) == 0 else {
            throw VMTestFailure(description: "SDL_Init failed: \(error)")
        }
    }

    private let count: CountFunction
    private let isGameController: IndexTest
    private let nameForIndex: IndexName
    private let vendorForIndex: IndexID
    private let productForIndex: IndexID
    private let open: Open
    private let mappingOf: Mapping

    deinit { quit() }

    /// SDL's last error.
    var error: String { getError().map { String(cString: $0) } ?? "" }

    /// Every joystick SDL sees: its vendor and product, and whether it is a game controller.
    var joysticks: [(index: Int32, vendor: UInt16, product: UInt16, isGameController: Bool)] {
        update()
        return (0..<max(0, count())).map { i in (i, vendorForIndex(i), productForIndex(i), isGameController(i) != 0) }
    }

    /// Opens the game controller with `vendor`:`product`, once SDL lists it.
    func openController(vendor: UInt16, product: UInt16, seconds: Double = 10) throws -> Controller {
        let found = try? waitFor("SDL to list \(hex(vendor)):\(hex(product))", seconds: seconds) {
            joysticks.first { $0.vendor == vendor && $0.product == product }
        }
        guard let found else {
            throw VMTestFailure(
                description:
                    "SDL lists no \(hex(vendor)):\(hex(product)) among its joysticks: \(joysticks.map { "\(hex($0.vendor)):\(hex($0.product)) controller \($0.isGameController)" })"
            )
        }
        guard found.isGameController else {
            throw VMTestFailure(
                description: "SDL lists \(hex(vendor)):\(hex(product)) but not as a game controller (no mapping)")
        }
        guard let pointer = open(found.index) else {
            throw VMTestFailure(description: "SDL_GameControllerOpen failed: \(error)")
        }
        let mapping = mappingOf(pointer).map { String(cString: $0) } ?? ""
        return Controller(
            pointer: pointer, name: nameForIndex(found.index).map { String(cString: $0) } ?? "", vendor: vendor,
            product: product, mapping: mapping)
    }

    /// An axis of `controller` as SDL reads it now (-32768...32767; triggers 0...32767).
    func axis(_ controller: Controller, _ axis: Axis) -> Int16 {
        update()
        return getAxis(controller.pointer, axis.rawValue)
    }

    /// Whether a button of `controller` is held, as SDL reads it now.
    func button(_ controller: Controller, _ button: Button) -> Bool {
        update()
        return getButton(controller.pointer, button.rawValue) != 0
    }

    private func hex(_ v: UInt16) -> String {
        let digits = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
