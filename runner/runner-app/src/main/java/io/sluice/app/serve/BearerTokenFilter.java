package io.sluice.app.serve;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/**
 * Lets a request through only with {@code Authorization: Bearer <token>}, or, from a browser that logged in on
 * {@code /login}, with the token in the {@code sluice_token} cookie; otherwise 401 before any handler runs, whatever
 * the path under {@code /api} (a path that does not exist is not revealed either), and a redirect to the login form
 * for a page. A request authorised by the cookie that changes something must also carry {@code X-Sluice-Request}
 * (the pages' own calls do; a form or link from another site cannot), else 403. The presented value is neither
 * logged nor echoed.
 */
final class BearerTokenFilter implements Filter {
    private static final String PREFIX = "Bearer ";
    static final String PAGE_HEADER = "X-Sluice-Request";

    private final ApiToken token;
    private final LoginSessions sessions;

    BearerTokenFilter(ApiToken token, LoginSessions sessions) {
        this.token = requireNonNull(token, "token is null");
        this.sessions = requireNonNull(sessions, "sessions is null");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        HttpServletResponse out = (HttpServletResponse) response;
        String header = http.getHeader("Authorization");
        if (header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
                && token.matches(header.substring(PREFIX.length()).strip())) {
            chain.doFilter(request, response);
            return;
        }
        if (header == null && sessions.valid(cookie(http))) {
            boolean reads = "GET".equals(http.getMethod()) || "HEAD".equals(http.getMethod());
            if (reads || http.getHeader(PAGE_HEADER) != null) {
                chain.doFilter(request, response);
                return;
            }
            refuse(out, HttpServletResponse.SC_FORBIDDEN, "a change through the login cookie needs the "
                    + PAGE_HEADER + " header the pages send");
            return;
        }
        String path = http.getRequestURI().substring(http.getContextPath().length());
        if (header == null && !path.startsWith("/api") && !path.startsWith("/actuator")) {
            out.setStatus(HttpServletResponse.SC_SEE_OTHER);
            out.setHeader("Location", "/login");
            return;
        }
        out.setHeader("WWW-Authenticate", "Bearer realm=\"sluice\"");
        refuse(out, HttpServletResponse.SC_UNAUTHORIZED, header == null ? "a bearer token is required"
                : "the token is not valid");
    }

    static String cookie(HttpServletRequest request) {
        Cookie[] cookies = request.getCookies();
        if (cookies != null) {
            for (Cookie c : cookies) {
                if (PageHandlers.COOKIE.equals(c.getName())) {
                    return c.getValue();
                }
            }
        }
        return null;
    }

    private static void refuse(HttpServletResponse http, int status, String error) throws IOException {
        http.setStatus(status);
        http.setContentType("application/json");
        byte[] body = ("{\"error\":\"" + error + "\"}").getBytes(StandardCharsets.UTF_8);
        http.setContentLength(body.length);
        http.getOutputStream().write(body);
    }
}
