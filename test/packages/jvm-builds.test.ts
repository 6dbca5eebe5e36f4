import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { declaredDependencies } from "../../src/packages/declared-dependencies.js";
import { discoverPackages } from "../../src/packages/discover-packages.js";
import { readGradleBuild, readGradleSettings, readPom } from "../../src/packages/jvm-builds.js";
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
    expect(readPom("<project><groupId>x</groupId></project>")).toBeNull();
    expect(readPom("not xml <<<")).toBeNull();
  });

  it("reads Gradle settings and builds in both DSLs, comments left out", () => {
    expect(readGradleSettings('rootProject.name = "shop"\ninclude(":app", "libs:core")\n// include(":gone")\ninclude \'cli\'\n')).toEqual({ rootName: "shop", projects: ["app", "cli", "libs/core"] });
    expect(
      readGradleBuild(
        'allprojects {\n  group = "com.acme"\n  version = "1.2"\n}\ndependencies {\n  implementation("com.acme:store:1.0")\n  api \'org.x:y:2\'\n  /* compileOnly("no:pe:1") */\n  testImplementation group: "org.junit", name: "junit", version: "4"\n  implementation(project(":libs:core"))\n}\n',
      ),
    ).toEqual({ group: "com.acme", version: "1.2", dependencies: ["com.acme:store", "org.junit:junit", "org.x:y"], projects: ["libs/core"] });
  });

  it("reads any text without throwing, in one pass", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (t) => {
        readPom(t);
        readGradleSettings(t);
        readGradleBuild(t);
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
});
