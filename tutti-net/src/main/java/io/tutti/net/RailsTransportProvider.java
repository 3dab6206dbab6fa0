package io.tutti.net;

import io.tutti.transport.RemoteTransport;
import io.tutti.transport.RemoteTransportProvider;

/** The {@code rails} network transport: reliable ordered UDP over one or more interfaces. */
public final class RailsTransportProvider implements RemoteTransportProvider {
    @Override
    public String name() {
        return "rails";
    }

    @Override
    public RemoteTransport open(Context context) {
        return new RailsTransport(context);
    }
}
