package io.sluice.app.serve;

import io.sluice.app.report.ClasspathText;
import io.sluice.app.report.HtmlRunReport;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The pages of {@code sluice serve} for people with a browser: a login form that keeps the token in a cookie, the
 * list of runs and specs ({@code /}), and a run's live report ({@code /runs/{id}} for this service's runs,
 * {@code /specs/{name}/runs/{id}} for any run in a spec's ledger). The pages only call the {@code /api} endpoints;
 * they start and resume runs through them.
 */
final class PageHandlers {
    static final String COOKIE = "sluice_token";
    private static final MediaType HTML = MediaType.parseMediaType("text/html;charset=UTF-8");
    private static final String INDEX = ClasspathText.read("/io/sluice/app/serve/index.html");
    private static final String LOGIN = ClasspathText.read("/io/sluice/app/serve/login.html");

    private final ApiHandlers api;
    private final ApiToken token;
    private final LoginSessions sessions;

    PageHandlers(ApiHandlers api, ApiToken token, LoginSessions sessions) {
        this.api = requireNonNull(api, "api is null");
        this.token = requireNonNull(token, "token is null");
        this.sessions = requireNonNull(sessions, "sessions is null");
    }

    ServerResponse index(ServerRequest request) {
        return html(HttpStatus.OK, INDEX);
    }

    ServerResponse loginForm(ServerRequest request) {
        return html(HttpStatus.OK, LOGIN.replace("/*ERROR*/", ""));
    }

    /** {@code POST /login} with the form's {@code token}: a new session in the cookie, then {@code /}. */
    ServerResponse login(ServerRequest request) throws Exception {
        Optional<String> presented = request.param("token");
        if (presented.isEmpty() || !token.matches(presented.get().strip())) {
            return html(HttpStatus.UNAUTHORIZED, LOGIN.replace("/*ERROR*/", "That is not the token."));
        }
        ResponseCookie cookie = ResponseCookie.from(COOKIE, sessions.open()).httpOnly(true).sameSite("Strict")
                .secure(request.servletRequest().isSecure()).path("/").build();
        return ServerResponse.seeOther(URI.create("/")).header(HttpHeaders.SET_COOKIE, cookie.toString()).build();
    }

    ServerResponse logout(ServerRequest request) {
        sessions.close(BearerTokenFilter.cookie(request.servletRequest()));
        ResponseCookie cookie = ResponseCookie.from(COOKIE, "").httpOnly(true).sameSite("Strict").path("/")
                .maxAge(0).build();
        return ServerResponse.seeOther(URI.create("/login")).header(HttpHeaders.SET_COOKIE, cookie.toString())
                .build();
    }

    /** A run of this service, updating while it runs. */
    ServerResponse runPage(ServerRequest request) {
        RunRecord run = api.find(request.pathVariable("id"));
        return html(HttpStatus.OK, new HtmlRunReport(run.redactor()::redact).renderLive(run.timeline().timeline(),
                "/api/runs/" + encode(run.runId()) + "/timeline"));
    }

    /** Any run of a spec, from its ledger, updating while it runs (wherever it runs). */
    ServerResponse ledgerRunPage(ServerRequest request) {
        String name = request.pathVariable("name");
        String id = request.pathVariable("id");
        ApiHandlers.LedgerView view = api.ledger(name, Optional.of(id));
        return html(HttpStatus.OK, new HtmlRunReport(view.redactor()::redact).renderLive(view.timeline(),
                "/api/specs/" + encode(name) + "/runs/" + encode(id) + "/timeline"));
    }

    private static ServerResponse html(HttpStatus status, String page) {
        return ServerResponse.status(status).contentType(HTML).header("Cache-Control", "no-store")
                .header("X-Frame-Options", "DENY").header("Referrer-Policy", "no-referrer").body(page);
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
