package dev.delayq.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.job.JobHandler;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Finds the {@link DelayqHandler} methods of the app's beans once every singleton exists, and
 * holds them as {@link JobHandler}s for the in-app worker, which runs them beside the
 * {@code JobHandler} beans. A bad signature, or a type with two handlers, stops the context's
 * start; the check runs with or without the in-app worker, so a mistake shows in every
 * deployment of the app, not only in those that run jobs.
 */
final class DelayqHandlerMethods implements SmartInitializingSingleton, BeanFactoryAware {
  private final Supplier<ObjectMapper> mapper;
  private ConfigurableListableBeanFactory beanFactory;
  private volatile List<JobHandler> handlers = List.of();

  /** {@code mapper}: asked once, at the scan, for the mapper that binds the payloads. */
  DelayqHandlerMethods(Supplier<ObjectMapper> mapper) {
    this.mapper = mapper;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    List<MethodJobHandler> found = scan();
    checkOneHandlerPerType(found);
    handlers = List.copyOf(found);
  }

  /** The handler methods found, in the order of the beans and their methods. */
  List<JobHandler> handlers() {
    return handlers;
  }

  private List<MethodJobHandler> scan() {
    List<MethodJobHandler> found = new ArrayList<>();
    ObjectMapper json = null;
    for (String name : beanFactory.getBeanNamesForType(Object.class, false, false)) {
      if (ScopedProxyUtils.isScopedTarget(name)) {
        continue; // its scoped proxy, under the plain name, is the bean to call
      }
      Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, name);
      if (type == null || !AnnotationUtils.isCandidateClass(type, DelayqHandler.class)) {
        continue;
      }
      Class<?> userClass = ClassUtils.getUserClass(type);
      Map<Method, DelayqHandler> methods = MethodIntrospector.selectMethods(userClass,
          (MethodIntrospector.MetadataLookup<DelayqHandler>) m ->
              AnnotatedElementUtils.findMergedAnnotation(m, DelayqHandler.class));
      if (methods.isEmpty()) {
        continue;
      }
      if (json == null) {
        json = mapper.get();
      }
      Object bean = beanFactory.getBean(name);
      for (Map.Entry<Method, DelayqHandler> m : methods.entrySet()) {
        found.add(MethodJobHandler.of(bean, userClass, m.getKey(), m.getValue().value(), json));
      }
    }
    return found;
  }

  /** Two methods, or a method and a JobHandler bean, of one type: refused, naming both. */
  private void checkOneHandlerPerType(List<MethodJobHandler> methods) {
    Map<String, String> owners = new LinkedHashMap<>();
    for (Map.Entry<String, JobHandler> bean : beanFactory.getBeansOfType(JobHandler.class).entrySet()) {
      String type = bean.getValue().type();
      if (type != null) {
        owners.putIfAbsent(type, "the JobHandler bean '" + bean.getKey() + "' ("
            + ClassUtils.getUserClass(bean.getValue()).getName() + ")");
      }
    }
    for (MethodJobHandler m : methods) {
      String before = owners.putIfAbsent(m.type(), m.toString());
      if (before != null) {
        throw new IllegalStateException("job type '" + m.type() + "' has two handlers: " + before + " and " + m
            + "; give each type one handler");
      }
    }
  }
}
