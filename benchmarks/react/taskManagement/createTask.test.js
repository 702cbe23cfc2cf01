import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './createTask';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('creates a task, lists it and clears the input', async () => {
  fetchMock.post('/api/tasks', { status: 201, body: { id: 101, title: 'Draft Q3 roadmap', done: false } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/new task/i), { target: { value: 'Draft Q3 roadmap' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/add task/i)); });

  expect(fetchMock.calls('/api/tasks').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/tasks').body)).toMatchObject({ title: 'Draft Q3 roadmap' });
  expect(screen.getByText('Draft Q3 roadmap')).toBeInTheDocument();
  expect(screen.getByPlaceholderText(/new task/i)).toHaveValue('');
}, 10000);

test('keeps the typed title and shows an error when creation fails', async () => {
  fetchMock.post('/api/tasks', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/new task/i), { target: { value: 'Draft Q3 roadmap' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/add task/i)); });

  expect(fetchMock.calls('/api/tasks').length).toBe(1);
  expect(screen.getByText(/failed to create task/i)).toBeInTheDocument();
  expect(screen.getByPlaceholderText(/new task/i)).toHaveValue('Draft Q3 roadmap');
}, 10000);
