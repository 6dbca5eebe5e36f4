import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { declaredDependencies } from "../../src/packages/declared-dependencies.js";
import { discoverPackages } from "../../src/packages/discover-packages.js";
import { readGradleBuild, readGradleProperties, readGradleSettings, readPom, readVersionCatalog } from "../../src/packages/jvm-builds.js";
import { createSandbox, type Sandbox } from "../helpers/git-fixture.js";

const PARENT = `<?xml version="1.0" encoding="UTF-8"?>
<!-- <artifactId>commented</artifactId> -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>acme-parent</artifactId>
  <version>2.1.0</version>
  <packaging>pom</packaging>
  <modules>
    <module>store</module>
    <module>api</module>
  </modules>
  <dependencyManagement><dependencies><dependency><groupId>org.managed</groupId><artifactId>only-managed</artifactId></dependency></dependencies></dependencyManagement>
</project>
`;
const CHILD = (artifact: string, deps: string) => `<project>
  <parent><groupId>com.acme</groupId><artifactId>acme-parent</artifactId><version>2.1.0</version></parent>
  <artifactId>${artifact}</artifactId>
  <dependencies>${deps}</dependencies>
</project>
`;

describe("Maven and Gradle builds", () => {
  it("reads a pom's coordinates (the group from its parent), modules and dependencies, not managed ones", () => {
    expect(readPom(PARENT)).toEqual({ group: "com.acme", artifact: "acme-parent", version: "2.1.0", modules: ["store", "api"], dependencies: [] });
    expect(readPom(CHILD("api", "<dependency><groupId>com.acme</groupId><artifactId>store</artifactId></dependency>"))).toEqual({
      group: "com.acme",
      artifact: "api",
      version: "2.1.0",
      modules: [],
      dependencies: ["com.acme:store"],
    });
    // A dependency through the pom's own coordinates or its properties, as Maven reads it; one it cannot say, as written.
    expect(
      readPom(
        CHILD(
          "web",
          "<dependency><groupId>${project.groupId}</groupId><artifactId>store</artifactId></dependency><dependency><groupId>${acme.tools}</groupId><artifactId>${project.artifactId}-cli</artifactId></dependency><dependency><groupId>${unknown}</groupId><artifactId>x</artifactId></dependency>",
        ).replace("<artifactId>web</artifactId>", "<artifactId>web</artifactId><properties><acme.tools>com.acme.tools</acme.tools></properties>"),
      )?.dependencies,
    ).toEqual(["${unknown}:x", "com.acme.tools:web-cli", "com.acme:store"]);
    expect(readPom("<project><groupId>x</groupId></project>")).toBeNull();
    expect(readPom("not xml <<<")).toBeNull();
  });

  it("reads Gradle settings and builds in both DSLs, comments left out", () => {
    expect(readGradleSettings('rootProject.name = "shop"\ninclude(":app", "libs:core")\n// include(":gone")\ninclude \'cli\'\n')).toEqual({ rootName: "shop", projects: ["app", "cli", "libs/core"] });
    expect(
      readGradleBuild(
        'allprojects {\n  group = "com.acme"\n  version = "1.2"\n}\ndependencies {\n  implementation("com.acme:store:1.0")\n  api \'org.x:y:2\'\n  /* compileOnly("no:pe:1") */\n  testImplementation group: "org.junit", name: "junit", version: "4"\n  implementation(project(":libs:core"))\n}\n',
      ),
    ).toEqual({ group: "com.acme", version: "1.2", dependencies: ["com.acme:store", "org.junit:junit", "org.x:y"], projects: ["libs/core"], catalog: [] });
  });

  it("reads what a build takes from its version catalog, and the catalog's libraries and bundles by their accessors", () => {
    const build = readGradleBuild(
      "dependencies {\n  implementation(libs.acme.store)\n  implementation libs.bundles.web\n  api(libs.acme.core.get())\n  // implementation(libs.commented)\n  testImplementation(libs.versions.junit)\n}\nplugins { alias(libs.plugins.kotlin) }\n",
    );
    expect(build.catalog).toEqual(["acme.core", "acme.store", "bundles.web"]);
    const catalog = readVersionCatalog(
      '[versions]\nacme = "1.0"\n\n[libraries]\nacme-store = { module = "com.acme:store", version.ref = "acme" }\nacme_core = { group = "com.acme", name = "core", version = "1" }\nslf4j = "org.slf4j:slf4j-api:2.0.0"\nbroken = { version = "1" }\n\n[bundles]\nweb = ["acme-store", "slf4j", "missing"]\n',
    );
    expect(catalog === null ? null : Object.fromEntries(catalog)).toEqual({
      "acme.store": ["com.acme:store"],
      "acme.core": ["com.acme:core"],
      slf4j: ["org.slf4j:slf4j-api"],
      "bundles.web": ["com.acme:store", "org.slf4j:slf4j-api"],
    });
    expect(readVersionCatalog("[libraries\n")).toBeNull();
  });

  it("reads a gradle.properties' group and version", () => {
    expect(readGradleProperties("# build\ngroup=com.acme\nversion : 1.4.0\n! group=commented\norg.gradle.jvmargs=-Xmx2g\n")).toEqual({ group: "com.acme", version: "1.4.0" });
    expect(readGradleProperties("group = not a group\n")).toEqual({ group: null, version: null });
  });

  it("reads any text without throwing, in one pass", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (t) => {
        readPom(t);
        readGradleSettings(t);
        readGradleBuild(t);
        readGradleProperties(t);
        readVersionCatalog(t);
      }),
      { numRuns: 500 },
    );
    // Unclosed comments and strings by the thousand end (a regular expression reading to the end at each would not).
    for (const s of ["/*", '"', 'implementation("a:b', "include("]) {
      const t = s.repeat(200_000);
      expect(readGradleBuild(t).dependencies.length).toBeLessThan(2);
      readGradleSettings(t);
    }
  });
});

describe("discovering Maven and Gradle modules", () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = createSandbox();
  });
  afterEach(() => sb.cleanup());

  it("lists a Maven multi-module build's modules and a Gradle build's projects as group:artifact, and what each declares", () => {
    sb.write("pom.xml", PARENT);
    sb.write("store/pom.xml", CHILD("store", ""));
    sb.write("api/pom.xml", CHILD("api", "<dependency><groupId>com.acme</groupId><artifactId>store</artifactId></dependency>"));
    sb.write("tools/settings.gradle", "rootProject.name = 'tools'\ninclude 'cli'\n");
    sb.write("tools/build.gradle", "subprojects { group = 'com.acme.tools' }\n");
    sb.write("tools/cli/build.gradle", "dependencies { implementation project(':core') }\n");
    const found = discoverPackages(sb.dir).packages.filter((p) => p.ecosystem === "maven");
    expect(found.map((p) => [p.path, p.name, p.version])).toEqual([
      [".", "com.acme:acme-parent", "2.1.0"],
      ["api", "com.acme:api", "2.1.0"],
      ["store", "com.acme:store", "2.1.0"],
    ]);
    expect(declaredDependencies(sb.dir, found)).toEqual(["maven:com.acme:store"]);
    const tools = discoverPackages(path.join(sb.dir, "tools")).packages;
    expect(tools.map((p) => [p.path, p.name])).toEqual([
      [".", "com.acme.tools:tools"],
      ["cli", "com.acme.tools:cli"],
    ]);
    expect(fs.existsSync(path.join(sb.dir, "tools", "cli", "build.gradle"))).toBe(true);
  });

  it("takes a Gradle build's group from its gradle.properties where no script sets it, and a project's dependencies from the version catalog", () => {
    sb.write("store/settings.gradle.kts", 'rootProject.name = "store"\ninclude(":client")\n');
    sb.write("store/build.gradle.kts", "plugins { `java-library` }\n");
    sb.write("store/gradle.properties", "group=com.acme\nversion=3.1\n");
    sb.write("store/client/build.gradle.kts", 'dependencies { implementation(libs.slf4j) }\ngroup = "com.acme.client"\n');
    sb.write("store/gradle/libs.versions.toml", '[libraries]\nslf4j = "org.slf4j:slf4j-api:2.0.0"\n');
    const store = discoverPackages(path.join(sb.dir, "store")).packages;
    expect(store.map((p) => [p.path, p.name, p.version])).toEqual([
      [".", "com.acme:store", "3.1"],
      ["client", "com.acme.client:client", "3.1"],
    ]);
    expect(declaredDependencies(path.join(sb.dir, "store"), store)).toEqual(["maven:org.slf4j:slf4j-api"]);
  });
});
