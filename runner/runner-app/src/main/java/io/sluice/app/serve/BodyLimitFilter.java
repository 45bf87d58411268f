package io.sluice.app.serve;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Every request body is bounded before anything parses it, logged in or not: a request that says it is larger is
 * refused with 413 at once, and one that does not say (chunked) ends with an error at the bound. The service's own
 * requests are small JSON documents and a login form.
 */
final class BodyLimitFilter implements Filter {
    static final long MAX_BODY_BYTES = 1024 * 1024;

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        if (http.getContentLengthLong() > MAX_BODY_BYTES) {
            HttpServletResponse out = (HttpServletResponse) response;
            out.setStatus(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
            out.setContentType("application/json");
            out.setHeader("Connection", "close");
            byte[] body = ("{\"error\":\"the request body is larger than " + MAX_BODY_BYTES + " bytes\"}")
                    .getBytes(StandardCharsets.UTF_8);
            out.setContentLength(body.length);
            out.getOutputStream().write(body);
            return;
        }
        chain.doFilter(new Bounded(http), response);
    }

    /** The request with a body that fails once it passes the bound. */
    private static final class Bounded extends HttpServletRequestWrapper {
        private ServletInputStream bounded;

        Bounded(HttpServletRequest request) {
            super(request);
        }

        @Override
        public synchronized ServletInputStream getInputStream() throws IOException {
            if (bounded == null) {
                ServletInputStream in = super.getInputStream();
                bounded = new ServletInputStream() {
                    private long read;

                    @Override
                    public int read() throws IOException {
                        int b = in.read();
                        if (b >= 0) {
                            count(1);
                        }
                        return b;
                    }

                    @Override
                    public int read(byte[] buffer, int offset, int length) throws IOException {
                        int n = in.read(buffer, offset, length);
                        if (n > 0) {
                            count(n);
                        }
                        return n;
                    }

                    private void count(int n) throws IOException {
                        read += n;
                        if (read > MAX_BODY_BYTES) {
                            throw new IOException("the request body is larger than " + MAX_BODY_BYTES + " bytes");
                        }
                    }

                    @Override
                    public boolean isFinished() {
                        return in.isFinished();
                    }

                    @Override
                    public boolean isReady() {
                        return in.isReady();
                    }

                    @Override
                    public void setReadListener(ReadListener listener) {
                        in.setReadListener(listener);
                    }
                };
            }
            return bounded;
        }
    }
}
