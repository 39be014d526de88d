import { createServer } from 'node:http';
/**
 * A provider's HTTP server on 127.0.0.1 with a random port: routes answer recorded or generated
 * bodies; faults can be queued for the next requests or set until healed.
 */
export class FakeHttpServer {
    server;
    requests = [];
    routes = [];
    queued = [];
    standing = null;
    sockets = new Set();
    holding = new Set();
    constructor(server) {
        this.server = server;
    }
    static async start() {
        const server = createServer();
        const fake = new FakeHttpServer(server);
        server.on('request', (req, res) => void fake.handle(req, res));
        server.on('connection', (s) => {
            fake.sockets.add(s);
            s.on('close', () => fake.sockets.delete(s));
        });
        await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
        return fake;
    }
    get url() {
        return `http://127.0.0.1:${this.server.address().port}`;
    }
    on(method, path, handler) {
        this.routes.push({ method, path, handler: typeof handler === 'function' ? handler : () => handler });
        return this;
    }
    /** The next `times` requests suffer this fault. */
    failNext(fault, times = 1) {
        for (let i = 0; i < times; i++)
            this.queued.push(fault);
        return this;
    }
    /** Every request suffers this fault until heal(). */
    failAlways(fault) {
        this.standing = fault;
        return this;
    }
    heal() {
        this.standing = null;
        this.queued.length = 0;
        return this;
    }
    /** Requests held unanswered by a timeout fault whose connection is still open; a cancelled call closes its own. */
    get held() {
        return this.holding.size;
    }
    countOf(method, path) {
        return this.requests.filter((r) => r.method === method && matches(path, r.path)).length;
    }
    async close() {
        for (const s of this.sockets)
            s.destroy();
        await new Promise((resolve) => this.server.close(() => resolve()));
    }
    async handle(req, res) {
        const chunks = [];
        for await (const c of req)
            chunks.push(c);
        const url = new URL(req.url ?? '/', 'http://fake');
        const body = Buffer.concat(chunks).toString('utf8');
        const request = {
            method: req.method ?? 'GET',
            path: url.pathname,
            query: url.searchParams,
            headers: req.headers,
            body,
            json: () => JSON.parse(body),
        };
        this.requests.push(request);
        const fault = this.queued.shift() ?? this.standing;
        if (fault?.kind === 'delay')
            await new Promise((r) => setTimeout(r, fault.ms));
        else if (fault?.kind === 'timeout') {
            this.holding.add(req);
            req.socket.once('close', () => this.holding.delete(req));
            return;
        }
        else if (fault)
            return applyFault(fault, req, res);
        const route = this.routes.find((r) => r.method === request.method && matches(r.path, request.path));
        if (!route)
            return send(res, {
                status: 404,
                json: { message: `fake: no route ${request.method} ${request.path}` },
            });
        try {
            const reply = await route.handler(request);
            if (reply.delayMs)
                await new Promise((r) => setTimeout(r, reply.delayMs));
            send(res, reply);
        }
        catch (e) {
            send(res, { status: 500, json: { message: `fake handler failed: ${e.message}` } });
        }
    }
}
function matches(pattern, path) {
    return typeof pattern === 'string' ? pattern.toLowerCase() === path.toLowerCase() : pattern.test(path);
}
function send(res, reply) {
    if (res.destroyed)
        return;
    const isText = reply.text !== undefined;
    res.writeHead(reply.status ?? 200, {
        'content-type': isText ? 'text/plain' : 'application/json',
        ...reply.headers,
    });
    res.end(isText ? reply.text : JSON.stringify(reply.json ?? null));
}
function applyFault(fault, req, res) {
    switch (fault.kind) {
        case 'status':
            return send(res, {
                status: fault.status,
                json: fault.json ?? { message: 'fault' },
                text: fault.text,
                headers: fault.headers,
            });
        case 'rate-limit':
            return send(res, {
                status: 429,
                json: fault.json ?? { message: 'rate limited' },
                headers: { 'retry-after': String(fault.retryAfterSeconds) },
            });
        case 'malformed':
            return send(res, { status: 200, text: '{"records": [{"truncated": ' });
        case 'drop':
            return req.socket.destroy();
        case 'timeout':
        case 'delay':
            // A timeout never answers; the socket is destroyed when the server closes.
            return;
    }
}
//# sourceMappingURL=http.js.map