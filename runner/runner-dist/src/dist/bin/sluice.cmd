@echo off
rem Sluice, from an unpacked distribution on Windows: needs a Java 21+ runtime (JAVA_HOME, else the java on PATH).
rem The DuckDB extensions shipped in duckdb-extensions\ are for Linux; on Windows DuckDB downloads its own unless a
rem connection names an extension-directory. SLUICE_JAVA_OPTS replaces the default JVM options.
setlocal
set "SLUICE_HOME=%~dp0.."
if defined JAVA_HOME (set "JAVA=%JAVA_HOME%\bin\java.exe") else (set "JAVA=java")
if not defined SLUICE_JAVA_OPTS set "SLUICE_JAVA_OPTS=-XX:+UseSerialGC -XX:CompileThresholdScaling=4 -XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000 -XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=400000"
"%JAVA%" %SLUICE_JAVA_OPTS% --enable-native-access=ALL-UNNAMED "-Dsluice.plugins=%SLUICE_HOME%\plugins" -jar "%SLUICE_HOME%\lib\app\sluice.jar" %*
exit /b %ERRORLEVEL%
