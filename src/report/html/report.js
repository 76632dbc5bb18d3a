window.addEventListener('beforeprint',function(){
  document.querySelectorAll('details').forEach(function(d){d.setAttribute('open','');});
});
