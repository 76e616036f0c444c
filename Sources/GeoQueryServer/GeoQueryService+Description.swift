import ServiceLifecycle

extension GeoQueryService: CustomStringConvertible {
    /// A short summary. Without it, describing the service (or the application and services that
    /// hold it) reflects over everything it keeps in memory — boundaries, cities, caches — which
    /// took about 10 s of CPU whenever a `ServiceGroup` named its services at start-up.
    public var description: String { "GeoQueryService(port \(configuration.port))" }
}

extension ServiceConfiguration: CustomStringConvertible {
    /// A short summary (see ``GeoQueryService/description``).
    public var description: String { "ServiceConfiguration(\(host):\(port))" }
}

extension ServiceGroupConfiguration.ServiceConfiguration {
    /// A service for a `ServiceGroup` under a name of its own: the default name is the service
    /// described by reflection, which for an application over the index costs seconds of CPU.
    public static func named(_ name: String, _ service: any Service) -> Self {
        .init(service: service, serviceName: name)
    }
}
