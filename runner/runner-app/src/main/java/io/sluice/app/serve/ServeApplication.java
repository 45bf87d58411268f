package io.sluice.app.serve;

import io.sluice.app.session.RunSession;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.app.telemetry.OtelExport;
import io.sluice.app.telemetry.OtelSettings;
import io.sluice.core.connector.ConnectorRegistry;
import io.sluice.core.service.Sluice;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The Spring side of {@code sluice serve}: Boot's auto-configuration (Tomcat, MVC, actuator, the Prometheus
 * registry) plus the beans below. Deliberately not a {@code @Configuration}: the command line's application scans
 * {@code io.sluice.app} and must not pick the service up in {@code run}. {@link ServeSettings} is registered by
 * {@link SluiceServer} before the context refreshes.
 */
@EnableAutoConfiguration
public class ServeApplication {
    @Bean
    SpecFolder specFolder(ServeSettings settings) {
        return new SpecFolder(settings.specsFolder());
    }

    @Bean
    Sluice sluice(ServeSettings settings) {
        return Sluice.onThisMachine(ConnectorRegistry.fromClassPath(), settings.stateDirectory());
    }

    @Bean
    RunService runService(SpecFolder specs, ServeSettings settings, MeterRegistry meters, Sluice sluice) {
        // Traces per run when OTEL_* settings name a collector; the meters go through Boot's OTLP registry.
        return new RunService(specs, new RunSession(sluice), meters, settings.maxConcurrentRuns(),
                OtelExport.start(OtelSettings.fromProcess().withoutMetrics()));
    }

    @Bean
    ApiHandlers apiHandlers(SpecFolder specs, RunService runs, Sluice sluice) {
        return new ApiHandlers(specs, runs, sluice);
    }

    @Bean
    LoginSessions loginSessions() {
        return new LoginSessions();
    }

    @Bean
    PageHandlers pageHandlers(ApiHandlers api, ServeSettings settings, LoginSessions sessions) {
        return new PageHandlers(api, settings.token(), sessions);
    }

    @Bean
    RouterFunction<ServerResponse> apiRoutes(ApiHandlers api, PageHandlers pages) {
        return RouterFunctions.route()
                .GET("/api/specs", api::listSpecs)
                .GET("/api/specs/{name}/runs", api::ledgerRuns)
                .GET("/api/specs/{name}/runs/{id}/timeline", api::ledgerTimeline)
                .GET("/api/runs", api::listRuns)
                .POST("/api/runs", api::startRun)
                .GET("/api/runs/{id}", api::getRun)
                .GET("/api/runs/{id}/timeline", api::runTimeline)
                .GET("/", pages::index)
                .GET("/login", pages::loginForm)
                .POST("/login", pages::login)
                .POST("/logout", pages::logout)
                .GET("/runs/{id}", pages::runPage)
                .GET("/specs/{name}/runs/{id}", pages::ledgerRunPage)
                .onError(ApiException.class, ApiHandlers::refusal)
                .build();
    }

    /**
     * The token guards all of /api, the pages and the metrics; health and the login form stay open (load balancers,
     * orchestrators, people who have not logged in yet).
     */
    @Bean
    FilterRegistrationBean<BearerTokenFilter> bearerTokenFilter(ServeSettings settings, LoginSessions sessions) {
        FilterRegistrationBean<BearerTokenFilter> registration =
                new FilterRegistrationBean<>(new BearerTokenFilter(settings.token(), sessions));
        // Not /login and /logout: a plain form posts them, and logging out only clears the cookie.
        registration.addUrlPatterns("/api", "/api/*", "/actuator/prometheus", "/", "/runs/*", "/specs/*");
        registration.setOrder(0);
        return registration;
    }

    /** Before anything reads a body, the login form included: every body is bounded. */
    @Bean
    FilterRegistrationBean<BodyLimitFilter> bodyLimitFilter() {
        FilterRegistrationBean<BodyLimitFilter> registration = new FilterRegistrationBean<>(new BodyLimitFilter());
        registration.addUrlPatterns("/*");
        registration.setOrder(-1);
        return registration;
    }
}
