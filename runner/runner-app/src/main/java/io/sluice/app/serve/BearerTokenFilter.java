package io.sluice.app.serve;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/**
 * Lets a request through only with {@code Authorization: Bearer <token>}; otherwise 401 before any handler runs,
 * whatever the path under {@code /api} (a path that does not exist is not revealed either). The presented value is
 * neither logged nor echoed.
 */
final class BearerTokenFilter implements Filter {
    private static final String PREFIX = "Bearer ";

    private final ApiToken token;

    BearerTokenFilter(ApiToken token) {
        this.token = requireNonNull(token, "token is null");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String header = ((HttpServletRequest) request).getHeader("Authorization");
        if (header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
                && token.matches(header.substring(PREFIX.length()).strip())) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletResponse http = (HttpServletResponse) response;
        http.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
        http.setHeader("WWW-Authenticate", "Bearer realm=\"sluice\"");
        http.setContentType("application/json");
        byte[] body = ("{\"error\":\"" + (header == null ? "a bearer token is required" : "the token is not valid")
                + "\"}").getBytes(StandardCharsets.UTF_8);
        http.setContentLength(body.length);
        http.getOutputStream().write(body);
    }
}
