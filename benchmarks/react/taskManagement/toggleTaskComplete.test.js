import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './toggleTaskComplete';

const tasks = [
  { id: 1, title: 'Write report', done: false },
  { id: 2, title: 'Book venue', done: true },
];

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('marks a task as done', async () => {
  fetchMock.get('/api/tasks', tasks);
  fetchMock.patch('/api/tasks/1', { status: 200, body: { id: 1, title: 'Write report', done: true } });

  await act(async () => { render(<App />); });
  expect(screen.getByTestId('task-1-checkbox')).not.toBeChecked();

  await act(async () => { fireEvent.click(screen.getByTestId('task-1-checkbox')); });

  expect(fetchMock.called('/api/tasks/1')).toBe(true);
  expect(JSON.parse(fetchMock.lastOptions('/api/tasks/1').body)).toEqual({ done: true });
  expect(screen.getByTestId('task-1-checkbox')).toBeChecked();
}, 10000);

test('leaves the task open and shows an error when the update fails', async () => {
  fetchMock.get('/api/tasks', tasks);
  fetchMock.patch('/api/tasks/1', 500);

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByTestId('task-1-checkbox')); });

  expect(fetchMock.called('/api/tasks/1')).toBe(true);
  expect(screen.getByTestId('task-1-checkbox')).not.toBeChecked();
  expect(screen.getByText(/could not update task/i)).toBeInTheDocument();
}, 10000);
